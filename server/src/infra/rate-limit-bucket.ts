/** A rate limit's bucket and a limiter's answer (rate-limiter.ts). */

export interface Bucket {
  ratePerSecond: number;
  burst: number;
}

export interface Decision {
  allowed: boolean;
  /** When not allowed: how long until one more request would pass. */
  retryAfterMs: number;
}
