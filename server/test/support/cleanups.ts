/** Cleanups that test helpers register; setup.ts runs them once every test of the file has run. */
const CLEANUPS = Symbol.for('leakwell.test.cleanups');
type Registry = { [CLEANUPS]?: (() => Promise<void>)[] };

export function registerCleanup(fn: () => Promise<void>): void {
  ((globalThis as Registry)[CLEANUPS] ??= []).push(fn);
}

export async function runCleanups(): Promise<void> {
  const cleanups = (globalThis as Registry)[CLEANUPS] ?? [];
  while (cleanups.length) await cleanups.pop()!();
}
