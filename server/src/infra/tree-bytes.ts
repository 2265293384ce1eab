import fs from 'node:fs';
import path from 'node:path';

/** Bytes of every file under `dir` (0 when it does not exist; a file removed meanwhile, by a merge, counts 0). */
export function treeBytes(dir: string): number {
  let total = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += treeBytes(full);
    else if (entry.isFile()) {
      try {
        total += fs.statSync(full).size;
      } catch {
        // Removed by a merge meanwhile.
      }
    }
  }
  return total;
}
