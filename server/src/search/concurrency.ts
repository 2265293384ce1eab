/**
 * Searches running at once per account, so that a few users' heavy queries cannot take
 * every engine thread. A search over the cap waits a short while for one of the account's
 * slots (first come, first served), so that a burst the API's rate limit allows (quick
 * searches sent together) is served rather than refused; a search still without a slot
 * after `waitMs`, or arriving when `maxWaiting` already wait, gets 429. In process only:
 * with several server instances a user may run this many searches on each (see
 * docs/configuration.md).
 */
import { AppError } from '../infra/errors';

interface Waiter {
  admit: () => void;
}
interface Slots {
  running: number;
  waiting: Waiter[];
}

export interface ConcurrencyOptions {
  /** Searches one account may run at once. */
  perUser: number;
  /** How long a search over the cap waits for a slot (0: refused at once). */
  waitMs: number;
  /** Searches of one account waiting at once, at most. */
  maxWaiting?: number;
  /** Accounts with a search running, at most (a bound on the map; far above any real load). */
  maxAccounts?: number;
}

export class SearchConcurrency {
  readonly #slots = new Map<string, Slots>();
  readonly perUser: number;
  readonly #waitMs: number;
  readonly #maxWaiting: number;
  readonly #maxAccounts: number;

  constructor(options: ConcurrencyOptions) {
    const { perUser, waitMs } = options;
    if (!Number.isInteger(perUser) || perUser < 1) throw new Error(`searches per user must be a whole number of 1 or more, not ${perUser}`);
    if (!Number.isInteger(waitMs) || waitMs < 0) throw new Error(`the wait for a search slot must be a whole number of milliseconds, not ${waitMs}`);
    this.perUser = perUser;
    this.#waitMs = waitMs;
    this.#maxWaiting = options.maxWaiting ?? 32;
    this.#maxAccounts = options.maxAccounts ?? 100_000;
  }

  #refusal(): AppError {
    return new AppError(
      429,
      'SEARCH_CONCURRENCY',
      `Too many searches at once: at most ${this.perUser} per account run at the same time. Wait for one to finish and try again.`,
      { 'retry-after': '1' },
    );
  }

  /** Takes a slot now if one is free (true); false when the caller must wait for one (`#wait`). Throws 429 when the map is full. */
  #take(userId: string): boolean {
    let slots = this.#slots.get(userId);
    if (!slots) {
      if (this.#slots.size >= this.#maxAccounts) throw this.#refusal();
      slots = { running: 0, waiting: [] };
      this.#slots.set(userId, slots);
    }
    if (slots.running < this.perUser) {
      slots.running++;
      return true;
    }
    return false;
  }

  /** Waits for one of the account's slots (all taken: `#take` said false); throws 429 when none comes in time. */
  async #wait(userId: string): Promise<void> {
    const own = this.#slots.get(userId)!;
    if (this.#waitMs === 0 || own.waiting.length >= this.#maxWaiting) throw this.#refusal();
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        admit: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        own.waiting.splice(own.waiting.indexOf(waiter), 1);
        reject(this.#refusal());
      }, this.#waitMs);
      own.waiting.push(waiter);
    });
  }

  /** A finished search hands its slot to the first waiting one, or gives it back. */
  #release(userId: string): void {
    const slots = this.#slots.get(userId);
    if (!slots) return;
    const next = slots.waiting.shift();
    if (next) {
      next.admit();
      return;
    }
    slots.running--;
    if (slots.running <= 0) this.#slots.delete(userId);
  }

  /**
   * Runs `work` in one of the account's slots, or throws 429 (Retry-After: 1) when none frees
   * in time. With a slot free, `work` starts at once (no promise before it: the hot path of
   * every search); the slot is given back when its promise settles.
   */
  run<T>(userId: string, work: () => Promise<T>): Promise<T> {
    let free: boolean;
    try {
      free = this.#take(userId);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    if (!free) return this.#wait(userId).then(() => this.#holding(userId, work));
    return this.#holding(userId, work);
  }

  /** `work` in the slot just taken, given back when it settles (or throws). */
  #holding<T>(userId: string, work: () => Promise<T>): Promise<T> {
    let running: Promise<T>;
    try {
      running = work();
    } catch (error) {
      this.#release(userId);
      return Promise.reject(error as Error);
    }
    return running.then(
      (value) => {
        this.#release(userId);
        return value;
      },
      (error: unknown) => {
        this.#release(userId);
        throw error;
      },
    );
  }

  /** Searches running now for one account, or accounts with a search running (tests, diagnostics). */
  running(userId?: string): number {
    return userId === undefined ? this.#slots.size : (this.#slots.get(userId)?.running ?? 0);
  }
}
