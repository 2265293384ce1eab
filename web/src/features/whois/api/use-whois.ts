import { useCallback, useRef, useState } from 'react';
import { whoisCost, type WhoisResponse, type WhoisTool } from '@common/whois-rules';
import { mutate } from 'swr';
import { ApiError } from '@/lib/api';
import { toast } from '@/lib/toast-store';
import { isWellFormed } from '../lib/answer-shape';
import { setWhoisCredits } from './use-whois-credits';
import { runWhois, WHOIS_CREDITS_PATH } from './whois-api';

/** Messages of a lookup that failed or returned nothing usable. */
export const LOOKUP_FAILED = 'Issue with api response';
export const LOOKUP_EMPTY = 'Issue with search';

/** One tab's last answer and the query text it answered. */
export interface WhoisResult<T extends WhoisTool = WhoisTool> {
  query: string;
  response: WhoisResponse<T>;
}
export type WhoisResults = { [T in WhoisTool]?: WhoisResult<T> };

/** ok: a new answer; same: the query just run again (not re-sent); credits: too few; failed: said in a toast. */
export type RunOutcome = 'ok' | 'same' | 'credits' | 'failed' | 'busy';

/** Statuses whose `{error}` text is meant for the user (validation, unavailable, rate limit). */
const USER_FIT = [400, 429, 503];

/**
 * POST /whois as an action: one lookup at a time, answers kept per tab so each tab shows
 * its own results, the balance set from each answer's remaining_credits. A
 * tool whose cost is above the known balance is refused before calling (history: 25).
 */
export function useWhois(balance: number | undefined) {
  const [results, setResults] = useState<WhoisResults>({});
  const [running, setRunning] = useState<WhoisTool | null>(null);
  const busy = useRef(false);
  /** The last lookup that answered: the same query is not re-run consecutively. */
  const last = useRef<{ tool: WhoisTool; query: string } | null>(null);

  const run = useCallback(
    async (tool: WhoisTool, query: string): Promise<RunOutcome> => {
      if (busy.current) return 'busy';
      if (last.current?.tool === tool && last.current.query === query) return 'same';
      if (balance !== undefined && balance < whoisCost(tool)) return 'credits';
      busy.current = true;
      setRunning(tool);
      try {
        const response = await runWhois(tool, query);
        if (typeof response.remaining_credits === 'number') void setWhoisCredits(response.remaining_credits);
        if (!isWellFormed(tool, response.data)) {
          toast.error(LOOKUP_EMPTY);
          return 'failed';
        }
        setResults((current) => ({ ...current, [tool]: { query, response } }));
        last.current = { tool, query };
        return 'ok';
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return 'failed';
        if (error instanceof ApiError && error.status === 403) {
          // The balance shown was stale: read it again.
          void mutate(WHOIS_CREDITS_PATH);
          return 'credits';
        }
        toast.error(error instanceof ApiError && USER_FIT.includes(error.status) && error.message ? error.message : LOOKUP_FAILED);
        return 'failed';
      } finally {
        busy.current = false;
        setRunning(null);
      }
    },
    [balance],
  );

  return { results, running, run };
}
