import os from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import { PASSWORD_MAX_LENGTH, meetsPasswordRules } from '../common/credentials';

// argon2 runs on libuv's thread pool (UV_THREADPOOL_SIZE, 4 by default), shared with file
// I/O, DNS and more. At most HASHING_LIMIT hashes run at once (the cores, leaving at least
// one pool thread free), so a flood of logins or resets queues here instead of occupying
// every pool thread.
const POOL_SIZE = Number(process.env.UV_THREADPOOL_SIZE) || 4;
export const HASHING_LIMIT = Math.max(1, Math.min(os.availableParallelism(), POOL_SIZE - 1));
let hashing = 0;
let peakHashing = 0;
let startedHashing = 0;
const waiting: (() => void)[] = [];

async function bounded<T>(work: () => Promise<T>): Promise<T> {
  if (hashing >= HASHING_LIMIT) await new Promise<void>((resolve) => waiting.push(resolve));
  else hashing++;
  peakHashing = Math.max(peakHashing, hashing);
  startedHashing++;
  try {
    return await work();
  } finally {
    // The slot passes straight to the next waiter, so `hashing` never exceeds the limit.
    const next = waiting.shift();
    if (next) next();
    else hashing--;
  }
}

/** Hashes running now, the most seen at once since the last reset, and how many ever started (tests, diagnostics). */
export function hashingStats(options: { resetPeak?: boolean } = {}): { active: number; peak: number; queued: number; limit: number; started: number } {
  const stats = { active: hashing, peak: peakHashing, queued: waiting.length, limit: HASHING_LIMIT, started: startedHashing };
  if (options.resetPeak) peakHashing = hashing;
  return stats;
}

// argon2id with the library's defaults (m=19 MiB, t=2, p=1: OWASP's minimum). The
// Algorithm const enum is not imported: it cannot be used under isolatedModules, and
// argon2id is the default.
export function hashPassword(password: string): Promise<string> {
  return bounded(() => hash(password));
}

let dummyHash: Promise<string> | undefined;

/** Verifies; for an unknown user pass `undefined` and a dummy hash runs so timing matches. */
export async function verifyPassword(storedHash: string | undefined, password: string): Promise<boolean> {
  if (!storedHash) {
    dummyHash ??= bounded(() => hash('dummy-password-for-timing'));
    const dummy = await dummyHash;
    await bounded(() => verify(dummy, password)).catch(() => false);
    return false;
  }
  return bounded(() => verify(storedHash, password)).catch(() => false);
}

export { isValidEmail } from '../common/credentials';

/** 8 to 55 characters, at least one uppercase letter and one digit. */
export function passwordProblem(password: string): string | null {
  if (password.length === 0) return 'Please set a password';
  if (password.length > PASSWORD_MAX_LENGTH) return `Invalid password format (max length ${PASSWORD_MAX_LENGTH})`;
  if (!meetsPasswordRules(password)) return 'Password must be 8 to 55 characters with at least 1 uppercase letter and 1 number';
  return null;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
