/**
 * One search run in one of the account's slots (search-service.ts): admitted (admission.ts:
 * counted, and with `charge` charged one credit), run with what the admission allows, and
 * its ticket settled with the outcome.
 */
import type { Config } from '../config';
import type { Engine } from '../../../engine/index';
import type { Admission, AdmissionTicket, AdmitOptions, SearchAccess, SearchRequest } from './admission';
import type { SearchConcurrency } from './concurrency';

export function admittedSearches(deps: { engine: Engine; config: Config; concurrency: SearchConcurrency; admit: Admission['admit'] }) {
  const { engine, config, concurrency, admit } = deps;

  /** No promise before the engine call when the admission is answered in process (the hot path). */
  function admitted<T>(userId: string, request: SearchRequest, options: AdmitOptions, runSearch: (access: SearchAccess) => Promise<T>) {
    const start = (ticket: AdmissionTicket) => {
      let running: Promise<T>;
      try {
        running = runSearch(ticket.access);
      } catch (error) {
        running = Promise.reject(error as Error);
      }
      return ticket.settle(running).then((result) => ({ access: ticket.access, result }));
    };
    return concurrency.run(userId, () => {
      const ticket = admit(userId, request, options);
      return ticket instanceof Promise ? ticket.then(start) : start(ticket);
    });
  }

  /** Admits and runs one search for the dashboard's shapes (the engine's entries). */
  function admitAndRun(userId: string, request: SearchRequest, options: AdmitOptions = {}) {
    return admitted(userId, request, options, (access) => engine.search({ ...request, oneTerm: !access.subscribed, timeBudgetMs: config.SEARCH_TIME_BUDGET_MS }));
  }

  /**
   * `admitAndRun` for the public API: the result is the reply's whole body, written by the
   * engine (Engine.searchApiReply), with the balance the admission left.
   */
  function admitAndRunApi(userId: string, request: SearchRequest, options: AdmitOptions = {}) {
    return admitted(userId, request, options, (access) =>
      engine.searchApiReply({ ...request, oneTerm: !access.subscribed, timeBudgetMs: config.SEARCH_TIME_BUDGET_MS }, access.lawEnforcement, access.credits),
    );
  }

  return { admitted, admitAndRun, admitAndRunApi };
}

export type AdmittedSearches = ReturnType<typeof admittedSearches>;
