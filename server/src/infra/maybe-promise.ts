/**
 * A value now, or a promise of it: what a call answers when its work may finish on the
 * calling thread. The engine answers a lone exact lookup there (engine/ARCHITECTURE.md,
 * "Threads"), and the /v2/search path passes that answer on without a promise: every
 * promise and microtask turn costs, most on the cold caches of a client's first request
 * after a pause (engine/BENCHMARKS.md, "paced one-hit searches").
 */
export type MaybePromise<T> = T | Promise<T>;

/** `f` of the value: at once when it is there, else when the promise resolves. */
export function mapMaybe<T, U>(value: MaybePromise<T>, f: (value: T) => U): MaybePromise<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}
