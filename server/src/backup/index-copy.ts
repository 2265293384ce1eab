/**
 * The search index's part of a backup (backup.ts): its immutable segments hard-linked (copied
 * across file systems) and its logs copied, under the engine's LOCK.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';

export interface IndexManifest {
  generation?: number;
  segments: { id: string; records?: number }[];
}

/** Files linked, copied, and their bytes. */
export interface CopyTally {
  linked: number;
  copied: number;
  bytes: number;
}

/** Holds the index's LOCK (flock(2), as the engine's writers take it) until `release`. */
export async function lockIndex(indexDir: string): Promise<{ release(): Promise<void> }> {
  const lockFile = path.join(indexDir, 'LOCK');
  fs.closeSync(fs.openSync(lockFile, 'a'));
  // util-linux flock(1) holds the lock while `cat` waits for its stdin; closing it releases.
  const child: ChildProcess = spawn('flock', ['--exclusive', lockFile, 'sh', '-c', 'echo locked; exec cat >/dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`cannot lock the index (flock from util-linux is needed): ${error.message}`)));
    child.once('exit', (code) => reject(new Error(`cannot lock the index: flock exited with ${code}`)));
    child.stdout!.once('data', () => resolve());
  });
  return {
    async release() {
      child.stdin!.end();
      await exited;
    },
  };
}

/** Links (or, across file systems, copies) every file under `from` into `to`. */
function linkTree(from: string, to: string, tally: CopyTally): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      linkTree(source, target, tally);
    } else if (entry.isFile()) {
      tally.bytes += fs.statSync(source).size;
      try {
        fs.linkSync(source, target);
        tally.linked++;
      } catch (error) {
        if (!['EXDEV', 'EPERM', 'EMLINK'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
        fs.copyFileSync(source, target);
        tally.copied++;
      }
    }
  }
}

function readIndexManifest(indexDir: string): IndexManifest | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(indexDir, 'MANIFEST'), 'utf8')) as IndexManifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Copies the index's published segments and logs into `target` (the caller holds the LOCK); answers its MANIFEST. */
export function copyIndex(indexDir: string, target: string, tally: CopyTally): IndexManifest | null {
  const indexManifest = readIndexManifest(indexDir);
  fs.mkdirSync(target, { recursive: true });
  for (const segment of indexManifest?.segments ?? []) linkTree(path.join(indexDir, `seg-${segment.id}`), path.join(target, `seg-${segment.id}`), tally);
  // The logs are appended to: copied, never linked. The removals, the opt-outs'
  // suppressions and their key (owner-only, as in the index), the well takedowns and
  // renames; MANIFEST last.
  for (const file of ['tombstones.log', 'suppressions.log', 'suppression.key', 'wells.log', 'MANIFEST']) {
    const source = path.join(indexDir, file);
    if (fs.existsSync(source)) {
      fs.copyFileSync(source, path.join(target, file));
      if (file === 'suppression.key') fs.chmodSync(path.join(target, file), 0o600);
      tally.copied++;
      tally.bytes += fs.statSync(source).size;
    }
  }
  return indexManifest;
}

/** Every segment id a published segment answers to: its own and those merged into it. */
export function segmentAliases(indexDir: string, id: string): string[] {
  try {
    const meta = JSON.parse(fs.readFileSync(path.join(indexDir, `seg-${id}`, 'segment.json'), 'utf8')) as { aliases?: { id: string }[] };
    return [id, ...(meta.aliases ?? []).map((a) => a.id)];
  } catch {
    return [id];
  }
}
