/**
 * "Check now" (docs/monitoring.md "Domain verification"): the TXT record, then the
 * `.well-known` file; a success verifies (or renews) the domain. Throttled per account.
 */
import type { Bucket } from '../infra/rate-limiter';
import type { DomainCheckResult, DomainVerification, DomainVerificationMethod } from '../common/monitoring-wire';
import * as repo from './domain-verification-repository';
import { currentVerification, newVerificationToken, ownRow, throttle, type DomainVerificationDeps } from './domain-verifications';

/** "Check now": 10 at once per account, then one every 30 s. */
export const CHECK_BUCKET: Bucket = { ratePerSecond: 1 / 30, burst: 10 };

function checkMessage(domain: string, method: DomainVerificationMethod | null, result: DomainVerification): string {
  if (method) return `${domain} is verified (${method === 'dns' ? 'DNS TXT record' : 'file'} found).`;
  if (result.verified) return `No TXT record or file found for ${domain}; it stays verified through ${result.verified_by} until ${result.expires_at?.slice(0, 10)}.`;
  return `No TXT record or file with the token was found for ${domain} yet. DNS changes can take a while to show; try again later.`;
}

export async function checkDomain(deps: Pick<DomainVerificationDeps, 'db' | 'verifier' | 'limiter'>, userId: string, rawDomain: string): Promise<DomainCheckResult> {
  const { db, verifier } = deps;
  const row = await ownRow(db, userId, rawDomain);
  await throttle(deps.limiter, `domain-check:${userId}`, CHECK_BUCKET);
  let method: DomainVerificationMethod | null = null;
  if (await verifier.hasTxtRecord(row.domain, row.token)) method = 'dns';
  else if (await verifier.hasFile(row.domain, row.token)) method = 'file';
  if (method) await repo.markVerified(db, { userId, domain: row.domain, method, newToken: newVerificationToken });
  else await repo.markChecked(db, userId, row.domain);
  const result = await currentVerification(deps, userId, row.domain);
  return { verified: result.verified, message: checkMessage(row.domain, method, result), domain: result };
}
