/**
 * A user's domain verifications as the use cases share them (docs/monitoring.md "Domain
 * verification"): the row of a task domain (its token made on first read), the
 * verification covering a domain (itself or a verified parent), how a row is shown, and
 * the per-account throttle of checks and mails.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { RateLimiter, Bucket } from '../infra/rate-limiter';
import type { MailService } from '../mail/mail-service';
import { Errors } from '../infra/errors';
import { DOMAIN_ROLE_ADDRESSES, domainCovers, normalizeDomain } from '../common/monitoring-rules';
import type { DomainVerification } from '../common/monitoring-wire';
import type { DomainVerifier } from './domain-verifier';
import * as repo from './domain-verification-repository';

/** What the domain verification use cases are given; each takes the part it uses. */
export interface DomainVerificationDeps {
  db: Kysely<Database>;
  verifier: DomainVerifier;
  mail: MailService;
  limiter: RateLimiter;
  brand: string;
  publicUrl: string;
}

type Verified = Awaited<ReturnType<typeof repo.verifiedDomains>>[number];

/** A token to publish: 128 random bits, hex (not guessable; made once per account and domain). */
export function newVerificationToken(): string {
  return randomBytes(16).toString('hex');
}

/** The verification covering a domain (itself first, else the nearest verified parent), if any. */
export function coveringVerification<T extends { domain: string }>(domain: string, verified: T[]): T | undefined {
  return verified.filter((v) => domainCovers(v.domain, domain)).sort((a, b) => b.domain.length - a.domain.length)[0];
}

function verificationView(verifier: DomainVerifier, row: repo.VerificationRow, verified: Verified[]): DomainVerification {
  const cover = coveringVerification(row.domain, verified);
  const expires = cover ? new Date(cover.verified_at.getTime() + repo.VERIFICATION_VALID_DAYS * 86_400_000) : null;
  const mailPending = row.mail_address && row.mail_expires_at && row.mail_expires_at.getTime() > Date.now();
  return {
    domain: row.domain,
    verified: cover !== undefined,
    verified_by: cover?.domain ?? null,
    method: cover?.method ?? null,
    verified_at: cover?.verified_at.toISOString() ?? null,
    expires_at: expires?.toISOString() ?? null,
    txt_record: verifier.txtRecord(row.token),
    file_url: verifier.fileUrl(row.domain),
    file_content: row.token,
    role_addresses: DOMAIN_ROLE_ADDRESSES.map((local) => `${local}@${row.domain}`),
    mail_sent_to: mailPending ? row.mail_address : null,
  };
}

/** One entry per domain of the user's domain tasks (tokens made on first read). */
export async function listVerifications(deps: Pick<DomainVerificationDeps, 'db' | 'verifier'>, userId: string): Promise<DomainVerification[]> {
  const rows = await repo.ensureRows(deps.db, userId, await repo.taskDomains(deps.db, userId), newVerificationToken);
  const verified = await repo.verifiedDomains(deps.db, userId);
  return rows.map((row) => verificationView(deps.verifier, row, verified));
}

/** One domain's entry as it is now (after a check or a mail changed it). */
export async function currentVerification(deps: Pick<DomainVerificationDeps, 'db' | 'verifier'>, userId: string, domain: string): Promise<DomainVerification> {
  const [current] = await repo.ensureRows(deps.db, userId, [domain], newVerificationToken);
  return verificationView(deps.verifier, current!, await repo.verifiedDomains(deps.db, userId));
}

/** The row of one of the user's task domains; 404 for a domain the user does not watch. */
export async function ownRow(db: Kysely<Database>, userId: string, rawDomain: string): Promise<repo.VerificationRow> {
  const domain = normalizeDomain(rawDomain);
  if (!domain || !(await repo.taskDomains(db, userId)).includes(domain)) throw Errors.notFound('domain task not found');
  return (await repo.ensureRows(db, userId, [domain], newVerificationToken))[0]!;
}

export async function throttle(limiter: RateLimiter, key: string, bucket: Bucket): Promise<void> {
  const decision = await limiter.take(key, bucket);
  if (!decision.allowed) throw Errors.tooManyRequests(decision.retryAfterMs);
}
