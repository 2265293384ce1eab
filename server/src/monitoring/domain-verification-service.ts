/**
 * Domain verification (docs/monitoring.md "Domain verification"): a domain task shows record values
 * only once its owner proved control of the domain, by a DNS TXT record holding the
 * account's token, a `.well-known` file holding it, or a link mailed to a role address of
 * the domain. A verification holds VERIFICATION_VALID_DAYS and covers the domain's
 * subdomains. Checks and mails are throttled per account. One module per use case
 * (domain-verifications: the list; domain-check; domain-mail-link); this service gives
 * them their dependencies.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { normalizeDomain } from '../common/monitoring-rules';
import type { DomainVerificationMethod } from '../common/monitoring-wire';
import * as repo from './domain-verification-repository';
import { coveringVerification, listVerifications, newVerificationToken, type DomainVerificationDeps } from './domain-verifications';
import { checkDomain } from './domain-check';
import { confirmMailLink, peekMailLink, sendVerificationMail } from './domain-mail-link';

export { coveringVerification, newVerificationToken } from './domain-verifications';
export { CHECK_BUCKET } from './domain-check';
export { DOMAIN_CONFIRM_PATH, MAIL_BUCKET, MAIL_LINK_VALID_HOURS } from './domain-mail-link';

/**
 * The user's verified domains now, as a test of a domain task's value (normalised or as
 * entered): the reports' gate (check on read).
 */
export async function domainGate(db: Kysely<Database>, userId: string): Promise<(domain: string) => boolean> {
  const verified = await repo.verifiedDomains(db, userId);
  return (value) => {
    const domain = normalizeDomain(value) ?? value.toLowerCase();
    return coveringVerification(domain, verified) !== undefined;
  };
}

/** The user's domains verified now (check on read), sorted: each covers its subdomains too. */
export async function verifiedDomainNames(db: Kysely<Database>, userId: string): Promise<string[]> {
  return (await repo.verifiedDomains(db, userId)).map((v) => v.domain).sort();
}

/** Marks a domain verified for an account: the operator's override and the tests' helper. */
export async function markDomainVerified(db: Kysely<Database>, userId: string, rawDomain: string, method: DomainVerificationMethod = 'operator'): Promise<string> {
  const domain = normalizeDomain(rawDomain);
  if (!domain) throw Errors.badRequest('invalid domain value');
  await repo.markVerified(db, { userId, domain, method, newToken: newVerificationToken });
  return domain;
}

export function createDomainVerificationService(deps: DomainVerificationDeps) {
  return {
    /** One entry per domain of the user's domain tasks (tokens made on first read). */
    list: (userId: string) => listVerifications(deps, userId),
    /** "Check now": the TXT record, then the file; a success verifies (or renews) the domain. */
    check: (userId: string, rawDomain: string) => checkDomain(deps, userId, rawDomain),
    /** Mails a confirmation link to a role address of the domain. */
    sendMail: (userId: string, rawDomain: string, role: string) => sendVerificationMail(deps, userId, rawDomain, role),
    peekMailLink: (token: string) => peekMailLink(deps.db, token),
    confirmMailLink: (token: string) => confirmMailLink(deps.db, token),
    close: () => deps.verifier.close(),
  };
}

export type DomainVerificationService = ReturnType<typeof createDomainVerificationService>;
