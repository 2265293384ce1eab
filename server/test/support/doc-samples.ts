/**
 * Running the API docs' samples as a user would (shared by the docs samples tests): each
 * sample is saved to a file and run by its language; what it prints is parsed as JSON.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { callSample, type CallSpec, type Language, type SampleContext } from '../../../web/src/lib/api-samples';

export const run = promisify(execFile);

/** True when `command args` runs (a tool the samples need is installed). */
export function has(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The samples' languages, each skipped (with the reason) where its tool is missing here. */
export function sampleLanguages(): { language: Language; skip: string | false }[] {
  return [
    { language: 'nodejs', skip: false },
    { language: 'curl', skip: has('curl', ['--version']) ? false : 'curl is missing' },
    { language: 'python', skip: has('python3', ['-c', 'import requests']) ? false : 'python3 with requests is not installed' },
    { language: 'golang', skip: has('go', ['version']) ? false : 'go is not installed' },
  ];
}

/**
 * A runner of samples. Runs are spaced 150 ms apart: the API allows 10 requests a second
 * per key, and fast runs (cURL) would pass it.
 */
export function sampleRunner() {
  let lastRun = 0;
  return async function runSample(dir: string, language: Language, context: SampleContext, call: CallSpec, name: string): Promise<unknown> {
    const wait = lastRun + 150 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    lastRun = Date.now();
    const code = callSample(language, context, call);
    const options = { cwd: dir, timeout: 120_000 };
    let stdout: string;
    switch (language) {
      case 'nodejs':
        fs.writeFileSync(path.join(dir, `${name}.mjs`), code);
        ({ stdout } = await run(process.execPath, [`${name}.mjs`], options));
        break;
      case 'python':
        fs.writeFileSync(path.join(dir, `${name}.py`), code);
        ({ stdout } = await run('python3', [`${name}.py`], options));
        break;
      case 'curl':
        fs.writeFileSync(path.join(dir, `${name}.sh`), code);
        ({ stdout } = await run('sh', [`${name}.sh`], options));
        break;
      case 'golang': {
        const goDir = path.join(dir, `go-${name}`);
        fs.mkdirSync(goDir, { recursive: true });
        fs.writeFileSync(path.join(goDir, 'main.go'), code);
        const env = { ...process.env, GOCACHE: path.join(dir, 'gocache'), GO111MODULE: 'off' };
        await run('go', ['vet', 'main.go'], { ...options, cwd: goDir, env });
        ({ stdout } = await run('go', ['run', 'main.go'], { ...options, cwd: goDir, env }));
        break;
      }
    }
    try {
      return JSON.parse(stdout);
    } catch {
      throw new Error(`${language} ${name} printed: ${stdout}`);
    }
  };
}
