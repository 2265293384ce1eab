/**
 * The shared rate limiter's batched takes (rate-limiter.ts): every takeEach of a moment in
 * one script call (GCRA_BATCH_SCRIPT), each call answered from its part of the reply.
 */
import type { Bucket, Decision } from './rate-limit-bucket';
import { see, type BucketViews } from './rate-limit-views';

export interface Call {
  keys: string[];
  bucket: Bucket;
  /** Count every bucket even over its limit: the request was already let through. */
  charge: boolean;
  resolve: (decision: Decision) => void;
  reject: (error: unknown) => void;
}

export type RunScript = (keys: string[], args: (string | number)[]) => Promise<unknown>;

/** Sends the calls in one script call: one round trip, one write; the answers update the views. */
export function sendBatch(takeBatch: RunScript, prefix: string, calls: Call[], views: BucketViews, now: () => number) {
  const keys: string[] = [];
  const args: (string | number)[] = [calls.length];
  for (const call of calls) {
    for (const key of call.keys) keys.push(prefix + key);
    args.push(call.keys.length, 1000 / call.bucket.ratePerSecond, call.bucket.burst, call.charge ? 1 : 0);
  }
  takeBatch(keys, args).then(
    (answer) => {
      const values = answer as number[];
      const seenAt = now();
      let at = 0;
      for (const call of calls) {
        const allowed = values[at] === 1;
        const retryAfterMs = values[at + 1]!;
        call.keys.forEach((key, i) => see(views, key, values[at + 2 + i]!, seenAt));
        at += 2 + call.keys.length;
        call.resolve({ allowed, retryAfterMs });
      }
    },
    (error: unknown) => {
      for (const call of calls) {
        for (const key of call.keys) see(views, key, -1, 0);
        call.reject(error);
      }
    },
  );
}
