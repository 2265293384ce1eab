/**
 * Domain verification (docs/monitoring.md "Domain verification"): a domain task shows record values
 * only once its owner proved control of the domain, by a DNS TXT record holding the
 * account's token, a `.well-known` file holding it, or a link mailed to a role address of
 * the domain. A verification holds VERIFICATION_VALID_DAYS and covers the domain's
 * subdomains. Checks and mails are throttled per account.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { RateLimiter, Bucket } from '../infra/rate-limiter';
import { type MailService, MailTemplates } from '../mail/mail-service';
import { Errors } from '../infra/errors';
import { DOMAIN_ROLE_ADDRESSES, domainCovers, normalizeDomain, type DomainRoleAddress } from '../common/monitoring-rules';
import type { DomainCheckResult, DomainVerification, DomainVerificationMethod } from '../common/monitoring-wire';
import type { DomainVerifier } from './domain-verifier';
import * as repo from './domain-verification-repository';

/** Where the mailed link points (GET: a confirmation page; POST: confirms). */
export const DOMAIN_CONFIRM_PATH = '/monitoring/verify-domain';
/** How long a mailed link is valid. */
export const MAIL_LINK_VALID_HOURS = 24;
/** "Check now": 10 at once per account, then one every 30 s. */
export const CHECK_BUCKET: Bucket = { ratePerSecond: 1 / 30, burst: 10 };
/** Role-address mails: 3 at once per account, then one every 10 minutes. */
export const MAIL_BUCKET: Bucket = { ratePerSecond: 1 / 600, burst: 3 };

/** A token to publish: 128 random bits, hex (not guessable; made once per account and domain). */
export function newVerificationToken(): string {
  return randomBytes(16).toString('hex');
}

function hashLinkToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

type Verified = Awaited<ReturnType<typeof repo.verifiedDomains>>[number];

/** The verification covering a domain (itself first, else the nearest verified parent), if any. */
export function coveringVerification<T extends { domain: string }>(domain: string, verified: T[]): T | undefined {
  return verified.filter((v) => domainCovers(v.domain, domain)).sort((a, b) => b.domain.length - a.domain.length)[0];
}

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

/** Marks a domain verified for an account: the operator's override and the tests' helper. */
export async function markDomainVerified(db: Kysely<Database>, userId: string, rawDomain: string, method: DomainVerificationMethod = 'operator'): Promise<string> {
  const domain = normalizeDomain(rawDomain);
  if (!domain) throw Errors.badRequest('invalid domain value');
  await repo.markVerified(db, { userId, domain, method, newToken: newVerificationToken });
  return domain;
}

export function createDomainVerificationService(deps: {
  db: Kysely<Database>;
  verifier: DomainVerifier;
  mail: MailService;
  limiter: RateLimiter;
  brand: string;
  publicUrl: string;
}) {
  const { db, verifier } = deps;

  function view(row: repo.VerificationRow, verified: Verified[]): DomainVerification {
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

  /** The row of one of the user's task domains; 404 for a domain the user does not watch. */
  async function ownRow(userId: string, rawDomain: string): Promise<repo.VerificationRow> {
    const domain = normalizeDomain(rawDomain);
    if (!domain || !(await repo.taskDomains(db, userId)).includes(domain)) throw Errors.notFound('domain task not found');
    return (await repo.ensureRows(db, userId, [domain], newVerificationToken))[0]!;
  }

  async function throttle(key: string, bucket: Bucket): Promise<void> {
    const decision = await deps.limiter.take(key, bucket);
    if (!decision.allowed) throw Errors.tooManyRequests(decision.retryAfterMs);
  }

  return {
    /** One entry per domain of the user's domain tasks (tokens made on first read). */
    async list(userId: string): Promise<DomainVerification[]> {
      const rows = await repo.ensureRows(db, userId, await repo.taskDomains(db, userId), newVerificationToken);
      const verified = await repo.verifiedDomains(db, userId);
      return rows.map((row) => view(row, verified));
    },

    /** "Check now": the TXT record, then the file; a success verifies (or renews) the domain. */
    async check(userId: string, rawDomain: string): Promise<DomainCheckResult> {
      const row = await ownRow(userId, rawDomain);
      await throttle(`domain-check:${userId}`, CHECK_BUCKET);
      let method: DomainVerificationMethod | null = null;
      if (await verifier.hasTxtRecord(row.domain, row.token)) method = 'dns';
      else if (await verifier.hasFile(row.domain, row.token)) method = 'file';
      if (method) await repo.markVerified(db, { userId, domain: row.domain, method, newToken: newVerificationToken });
      else await repo.markChecked(db, userId, row.domain);
      const [current] = await repo.ensureRows(db, userId, [row.domain], newVerificationToken);
      const result = view(current!, await repo.verifiedDomains(db, userId));
      const message = method
        ? `${row.domain} is verified (${method === 'dns' ? 'DNS TXT record' : 'file'} found).`
        : result.verified
          ? `No TXT record or file found for ${row.domain}; it stays verified through ${result.verified_by} until ${result.expires_at?.slice(0, 10)}.`
          : `No TXT record or file with the token was found for ${row.domain} yet. DNS changes can take a while to show; try again later.`;
      return { verified: result.verified, message, domain: result };
    },

    /** Mails a confirmation link to a role address of the domain. */
    async sendMail(userId: string, rawDomain: string, role: string): Promise<DomainVerification> {
      if (!(DOMAIN_ROLE_ADDRESSES as readonly string[]).includes(role)) throw Errors.badRequest(`address must be one of ${DOMAIN_ROLE_ADDRESSES.join(', ')}`);
      const row = await ownRow(userId, rawDomain);
      await throttle(`domain-mail:${userId}`, MAIL_BUCKET);
      const token = randomBytes(32).toString('base64url');
      const address = `${role as DomainRoleAddress}@${row.domain}`;
      await repo.setMailToken(db, { userId, domain: row.domain, address, tokenHash: hashLinkToken(token), validMinutes: MAIL_LINK_VALID_HOURS * 60 });
      const url = `${deps.publicUrl}${DOMAIN_CONFIRM_PATH}?t=${token}`;
      await deps.mail.send(MailTemplates.domainVerification(address, deps.brand, row.domain, url, MAIL_LINK_VALID_HOURS));
      const [current] = await repo.ensureRows(db, userId, [row.domain], newVerificationToken);
      return view(current!, await repo.verifiedDomains(db, userId));
    },

    /** The domain a link token would confirm (the page shown before confirming); undefined when invalid. */
    async peekMailLink(token: string): Promise<{ domain: string; address: string } | undefined> {
      const row = await repo.findMailToken(db, hashLinkToken(token));
      return row ? { domain: row.domain, address: row.mail_address ?? '' } : undefined;
    },

    /** Confirms a mailed link (single use): the domain is verified by email. */
    async confirmMailLink(token: string): Promise<{ domain: string } | undefined> {
      const row = await repo.confirmMailToken(db, hashLinkToken(token));
      return row ? { domain: row.domain } : undefined;
    },

    close: () => verifier.close(),
  };
}

export type DomainVerificationService = ReturnType<typeof createDomainVerificationService>;
