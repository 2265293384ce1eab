/**
 * One checked query for a user: its credits held, the answer resolved (resolve-query.ts),
 * then the credits captured when the answer has data, refunded when it has none or every
 * provider failed (docs/whois.md "Credits": one rule for every tool).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { AppError } from '../infra/errors';
import { WHOIS_MESSAGES, hasData, whoisCost, type WhoisAnswer, type WhoisQuery, type WhoisResponse, type WhoisTool } from '../common/whois-rules';
import type { ProviderAnswer } from './provider';
import type { WhoisCursor } from './resolve-query';
import { captureHold, refundHold, takeHold } from './whois-repository';

type Resolve = (query: WhoisQuery, cursor: WhoisCursor) => Promise<ProviderAnswer<WhoisAnswer> | undefined>;

export async function runQuery<T extends WhoisTool>(
  deps: { db: Kysely<Database>; resolve: Resolve },
  userId: string,
  query: WhoisQuery & { tool: T },
  cursor: WhoisCursor,
): Promise<Omit<WhoisResponse<T>, 'search_type'>> {
  const { db } = deps;
  const cost = whoisCost(query.tool);
  const hold = await takeHold(db, userId, query.tool, cost);
  if (!hold) throw new AppError(403, 'WHOIS_CREDITS_REQUIRED', WHOIS_MESSAGES.creditsRequired);
  let answer: ProviderAnswer<WhoisAnswer> | undefined;
  try {
    answer = await deps.resolve(query, cursor);
  } catch (error) {
    await refundHold(db, hold.id);
    throw error;
  }
  if (!answer) {
    await refundHold(db, hold.id);
    throw new AppError(503, 'WHOIS_UNAVAILABLE', WHOIS_MESSAGES.unavailable);
  }
  let balance = hold.balance;
  if (hasData(query.tool, answer.data)) await captureHold(db, hold.id);
  else balance = (await refundHold(db, hold.id)) ?? hold.balance + cost;
  return {
    data: answer.data as WhoisResponse<T>['data'],
    source: answer.source,
    fetched_at: answer.fetchedAt.toISOString(),
    remaining_credits: balance,
  };
}
