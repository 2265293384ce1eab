/**
 * Searches running at once per account (issue 13: a few users' heavy queries must not take
 * every engine thread). In process only: with several server instances a user may run
 * this many searches on each (see the README's settings).
 */
import { AppError } from '../infra/errors';

export class SearchConcurrency {
  readonly #running = new Map<string, number>();

  /**
   * @param perUser searches one account may run at once
   * @param maxAccounts accounts with a search running, at most (a bound on the map: past
   *   it every new account is refused until one finishes; far above any real load)
   */
  constructor(
    readonly perUser: number,
    readonly maxAccounts = 100_000,
  ) {
    if (!Number.isInteger(perUser) || perUser < 1) throw new Error(`searches per user must be a whole number of 1 or more, not ${perUser}`);
  }

  /** Runs `work` in one of the account's slots, or throws 429 (Retry-After: 1) when they are all taken. */
  async run<T>(userId: string, work: () => Promise<T>): Promise<T> {
    const running = this.#running.get(userId) ?? 0;
    if (running >= this.perUser || (running === 0 && this.#running.size >= this.maxAccounts)) {
      throw new AppError(
        429,
        'SEARCH_CONCURRENCY',
        `Too many searches at once: at most ${this.perUser} per account run at the same time. Wait for one to finish and try again.`,
        { 'retry-after': '1' },
      );
    }
    this.#running.set(userId, running + 1);
    try {
      return await work();
    } finally {
      const left = (this.#running.get(userId) ?? 1) - 1;
      if (left > 0) this.#running.set(userId, left);
      else this.#running.delete(userId);
    }
  }

  /** Searches running now for one account, or accounts with a search running (tests, diagnostics). */
  running(userId?: string): number {
    return userId === undefined ? this.#running.size : (this.#running.get(userId) ?? 0);
  }
}
