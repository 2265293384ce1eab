/**
 * The repository stands alone: whoever clones it has every document it points to. No
 * tracked file may point at a sibling `shared/` folder or cite a section of an outside
 * specification ("spec 3 §5"); a rule is stated where it applies or in docs/. Every
 * `docs/….md` a tracked file names must exist, so moving a document cannot leave
 * pointers dangling. Every item of the security checklist names the test file that proves it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SELF = path.relative(ROOT, fileURLToPath(import.meta.url));

/** Text files under version control (binary files, with a NUL byte, are skipped). */
function trackedTexts(): { file: string; text: string }[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter((file) => file !== '' && file !== SELF);
  return files.flatMap((file) => {
    const full = path.join(ROOT, file);
    if (!fs.existsSync(full) || !fs.statSync(full).isFile()) return [];
    const bytes = fs.readFileSync(full);
    return bytes.includes(0) ? [] : [{ file, text: bytes.toString('utf8') }];
  });
}

/** Pointers to documents outside the repository. */
const OUTSIDE = [
  /\.\.\/shared\b/,
  /\bshared\/(?:spec|design)\b/,
  /\bspecs? \d+\s*(?:§|section\b)/i,
  /\bspec \d+\b/i,
];

function offending(text: string, patterns: RegExp[]): string[] {
  return text.split('\n').flatMap((line, index) => (patterns.some((p) => p.test(line)) ? [`${index + 1}: ${line.trim().slice(0, 120)}`] : []));
}

test('no tracked file points outside the repository or cites outside spec sections', () => {
  const found = trackedTexts().flatMap(({ file, text }) => offending(text, OUTSIDE).map((hit) => `${file}:${hit}`));
  assert.deepEqual(found, [], `references outside the repository:\n${found.join('\n')}`);
});

test('the check catches each form of outside reference', () => {
  for (const line of ['see ../shared/design/architecture.md', 'shared/spec/3-account.md', '(spec 3 §5)', 'Spec 2 section 3', 'the route table of spec 1']) {
    assert.equal(offending(line, OUTSIDE).length, 1, line);
  }
  assert.equal(offending('RFC 9083 §5.3 and CallSpec 1', OUTSIDE).length, 0);
});

test('every docs/*.md a tracked file names exists', () => {
  const missing = new Set<string>();
  for (const { file, text } of trackedTexts()) {
    for (const match of text.matchAll(/(?<![\w./-])docs\/[\w./-]+?\.md\b/g)) {
      if (!fs.existsSync(path.join(ROOT, match[0]))) missing.add(`${file}: ${match[0]}`);
    }
  }
  assert.deepEqual([...missing], []);
});

test('every item of the security checklist names a test file, and every file it names exists', () => {
  const checklist = ['reliability-security.md', 'reliability.md'].map((name) => fs.readFileSync(path.join(ROOT, 'docs', name), 'utf8')).join('\n');
  const items = checklist.split(/\n(?=\*\*\d+\. )/).slice(1);
  assert.ok(items.length >= 40, `checklist items: ${items.length}`);
  const problems = items.flatMap((item) => {
    const number = /^\*\*(\d+)\./.exec(item)![1];
    const files = [...item.matchAll(/`((?:server|web|engine|scripts|loadtest)\/[\w./-]+\.(?:ts|rs|mjs))`/g)].map((m) => m[1]!);
    if (/not yet (?:covered|built)|planned|retired/i.test(item.split('\n')[0]!) && files.length === 0) return [];
    if (files.length === 0) return [`item ${number} names no test file`];
    return files.filter((file) => !fs.existsSync(path.join(ROOT, file))).map((file) => `item ${number}: ${file} does not exist`);
  });
  assert.deepEqual(problems, []);
});
