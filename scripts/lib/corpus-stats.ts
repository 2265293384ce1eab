/**
 * What the benches pick their query values from: counts over a generated corpus's flat.tsv
 * (scripts/corpus.ts; columns source, email, username, password, hashed_password, …, name).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface CorpusStats {
  passwords: Map<string, number>;
  domains: Map<string, number>;
  /** Every 997th email, at most 50. */
  emails: string[];
  /** 40-hex hashed passwords. */
  hashes: Map<string, number>;
  /** Last names of 6 letters or more, lower-cased. */
  lastNames: Map<string, number>;
  /** First 4 letters of usernames that start with 4 letters, lower-cased. */
  userPrefixes: Map<string, number>;
}

export async function scanFlat(file: string): Promise<CorpusStats> {
  const passwords = new Map<string, number>();
  const userPrefixes = new Map<string, number>();
  const domains = new Map<string, number>();
  const hashes = new Map<string, number>();
  const lastNames = new Map<string, number>();
  const emails: string[] = [];
  const add = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  let i = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    const c = line.split('\t');
    const [email, username, password, hashed, name] = [c[1] ?? '', c[2] ?? '', c[3] ?? '', c[4] ?? '', c[6] ?? ''];
    if (password) add(passwords, password);
    const up = username.slice(0, 4).toLowerCase();
    if (/^[a-z]{4}$/.test(up)) add(userPrefixes, up);
    if (hashed.length === 40) add(hashes, hashed);
    if (email) {
      add(domains, email.slice(email.lastIndexOf('@') + 1));
      if (i++ % 997 === 0 && emails.length < 50) emails.push(email);
    }
    const ln = name ? (name.split(' ').pop()?.toLowerCase() ?? '') : '';
    if (ln.length >= 6) add(lastNames, ln);
  }
  return { passwords, domains, emails, hashes, lastNames, userPrefixes };
}

/** The key whose count is nearest to `target` (in log scale), with its count. */
export function nearest(m: Map<string, number>, target: number): [string, number] {
  let best: [string, number] = ['', 0];
  let bestD = Infinity;
  for (const [k, v] of m) {
    const d = Math.abs(Math.log(v) - Math.log(target));
    if (d < bestD) {
      bestD = d;
      best = [k, v];
    }
  }
  return best;
}

/** Entries by count, most frequent first. */
export const byCount = (m: Map<string, number>): [string, number][] => [...m.entries()].sort((a, b) => b[1] - a[1]);
