/**
 * The shared rate limiter's local views of its buckets (rate-limiter.ts): what Redis last
 * said of each and this process's takes since, so that answerEarly may let a request
 * through without waiting for Redis.
 */
import type { Bucket } from './rate-limit-bucket';

/** This process's view of one shared bucket, for answerEarly. */
export interface LocalView {
  /** The bucket's theoretical arrival time (local clock, ms) as of Redis's last answer, read late (so never earlier than it is). */
  tat: number;
  /** When that answer came (local clock, ms). */
  seenAt: number;
  /** This process's takes from the bucket sent (or about to be) and not answered yet. */
  pending: number;
}

export type BucketViews = Map<string, LocalView>;

/** How old Redis's last word on a bucket may be for answerEarly to rely on it. */
const EARLY_VIEW_MS = 1000;

/** Drops drained buckets, so memory stays bounded by active keys. */
export function dropDrained(views: BucketViews, t: number) {
  for (const [key, view] of views) if (view.pending === 0 && view.tat < t) views.delete(key);
}

/** One more take of each key sent (or about to be). */
export function notePending(views: BucketViews, keys: string[]) {
  for (const key of keys) {
    let view = views.get(key);
    if (!view) views.set(key, (view = { tat: 0, seenAt: 0, pending: 0 }));
    view.pending++;
  }
}

/** Redis answered a take of `key`: its bucket is `ahead` ms past now (-1: not reached, or no answer). */
export function see(views: BucketViews, key: string, ahead: number, seenAt: number) {
  const view = views.get(key);
  if (!view) return;
  view.pending--;
  if (ahead >= 0) {
    view.tat = seenAt + ahead;
    view.seenAt = seenAt;
  }
}

/**
 * Whether every bucket, as Redis last said (within EARLY_VIEW_MS) plus this process's
 * takes not answered yet plus this one, keeps at least half its burst.
 */
export function farFromEmpty(views: BucketViews, keys: string[], bucket: Bucket, t: number): boolean {
  const interval = 1000 / bucket.ratePerSecond;
  const limit = interval * bucket.burst;
  for (const key of keys) {
    const view = views.get(key);
    if (!view || t - view.seenAt > EARLY_VIEW_MS) return false;
    if (Math.max(view.tat, t) + (view.pending + 1) * interval - t > limit / 2) return false;
  }
  return true;
}
