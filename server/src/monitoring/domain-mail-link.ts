/**
 * Domain verification by a mailed link (docs/monitoring.md "Domain verification"): a link
 * to a role address of the domain (throttled per account), valid MAIL_LINK_VALID_HOURS and
 * once; its token is stored as its SHA-256.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Bucket } from '../infra/rate-limiter';
import { MailTemplates } from '../mail/mail-service';
import { Errors } from '../infra/errors';
import { DOMAIN_ROLE_ADDRESSES, type DomainRoleAddress } from '../common/monitoring-rules';
import type { DomainVerification } from '../common/monitoring-wire';
import * as repo from './domain-verification-repository';
import { currentVerification, ownRow, throttle, type DomainVerificationDeps } from './domain-verifications';

/** Where the mailed link points (GET: a confirmation page; POST: confirms). */
export const DOMAIN_CONFIRM_PATH = '/monitoring/verify-domain';
/** How long a mailed link is valid. */
export const MAIL_LINK_VALID_HOURS = 24;
/** Role-address mails: 3 at once per account, then one every 10 minutes. */
export const MAIL_BUCKET: Bucket = { ratePerSecond: 1 / 600, burst: 3 };

function hashLinkToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Mails a confirmation link to a role address of the domain. */
export async function sendVerificationMail(deps: DomainVerificationDeps, userId: string, rawDomain: string, role: string): Promise<DomainVerification> {
  if (!(DOMAIN_ROLE_ADDRESSES as readonly string[]).includes(role)) throw Errors.badRequest(`address must be one of ${DOMAIN_ROLE_ADDRESSES.join(', ')}`);
  const row = await ownRow(deps.db, userId, rawDomain);
  await throttle(deps.limiter, `domain-mail:${userId}`, MAIL_BUCKET);
  const token = randomBytes(32).toString('base64url');
  const address = `${role as DomainRoleAddress}@${row.domain}`;
  await repo.setMailToken(deps.db, { userId, domain: row.domain, address, tokenHash: hashLinkToken(token), validMinutes: MAIL_LINK_VALID_HOURS * 60 });
  const url = `${deps.publicUrl}${DOMAIN_CONFIRM_PATH}?t=${token}`;
  await deps.mail.send(MailTemplates.domainVerification(address, deps.brand, row.domain, url, MAIL_LINK_VALID_HOURS));
  return currentVerification(deps, userId, row.domain);
}

/** The domain a link token would confirm (the page shown before confirming); undefined when invalid. */
export async function peekMailLink(db: Kysely<Database>, token: string): Promise<{ domain: string; address: string } | undefined> {
  const row = await repo.findMailToken(db, hashLinkToken(token));
  return row ? { domain: row.domain, address: row.mail_address ?? '' } : undefined;
}

/** Confirms a mailed link (single use): the domain is verified by email. */
export async function confirmMailLink(db: Kysely<Database>, token: string): Promise<{ domain: string } | undefined> {
  const row = await repo.confirmMailToken(db, hashLinkToken(token));
  return row ? { domain: row.domain } : undefined;
}
