/** The engine's search calls (searches, password checks, per-well counts) timed by query class and outcome (metrics.ts); every other member as it is. */
import type { Histogram } from 'prom-client';
import type { Engine } from '../../../engine/index';
import { EngineQueryError, EngineTimeoutError } from '../../../engine/index';

type Searches = Histogram<'class' | 'outcome'>;

const classOf = (mode: string | undefined) => (mode === 'wildcard' || mode === 'regex' || mode === 'exact' ? mode : 'auto');
const outcomeOf = (error: unknown) => (error instanceof EngineTimeoutError ? 'timeout' : error instanceof EngineQueryError ? 'refused' : 'error');

function timed<T extends { tookMicros?: number }>(searches: Searches, cls: string, run: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  return run().then(
    (result) => {
      const micros = typeof result.tookMicros === 'number' ? result.tookMicros : Number(process.hrtime.bigint() - started) / 1000;
      searches.observe({ class: cls, outcome: 'ok' }, micros / 1e6);
      return result;
    },
    (error: unknown) => {
      searches.observe({ class: cls, outcome: outcomeOf(error) }, Number(process.hrtime.bigint() - started) / 1e9);
      throw error;
    },
  );
}

export function instrumentEngine(target: Engine, searches: Searches): Engine {
  const wrapped: Partial<Engine> = {
    search: (req) => timed(searches, classOf(req.mode), () => target.search(req)),
    searchApiText: (req, le) => timed(searches, classOf(req.mode), () => target.searchApiText(req, le)),
    // The reply's bytes carry no figure to read back: the call's own time is observed.
    searchApiReply: (req, le, balance) => timed(searches, classOf(req.mode), () => target.searchApiReply(req, le, balance) as Promise<Buffer & { tookMicros?: number }>),
    passwordCount: (hash) => timed(searches, 'password_check', () => target.passwordCount(hash)),
    passwordRange: (prefix) =>
      timed(searches, 'password_range', () => target.passwordRange(prefix) as Promise<Awaited<ReturnType<Engine['passwordRange']>> & { tookMicros?: number }>),
    wellCounts: (req) => timed(searches, 'well_counts', () => target.wellCounts(req)),
  };
  return new Proxy(target, {
    get(object, key) {
      if (Object.hasOwn(wrapped, key)) return wrapped[key as keyof Engine];
      const value = Reflect.get(object, key, object) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
    },
  });
}
