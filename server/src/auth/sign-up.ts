/**
 * Sign-up: registration and the mailed verification link. No answer reveals whether an email
 * has an account: an existing one gets a mail (a new link, or "already registered") instead.
 */
import { MailTemplates } from '../mail/mail-service';
import { Errors } from '../infra/errors';
import { hashToken } from '../infra/secrets';
import * as authRepo from './auth-repository';
import * as userRepo from '../users/accounts-service';
import { hashPassword, isValidEmail, normalizeEmail, passwordProblem } from './passwords';
import type { AuthContext } from './auth-context';

const REGISTER_PER_IP = { ratePerSecond: 1 / 10, burst: 10 };

type SignUpDeps = Pick<AuthContext, 'db' | 'config' | 'mail' | 'link' | 'throttle' | 'mayMail' | 'issueOneTimeLink'>;

/** A purchase intent from the redirect rules (`ro`, `q`), carried in the verification link when well-formed. */
function intentOf(input: { ro?: string; q?: string }): string {
  return (
    (input.ro && /^[1-7]$/.test(input.ro) ? `&ro=${input.ro}` : '') +
    (input.q && /^[A-Za-z0-9_.-]{1,64}$/.test(input.q) ? `&q=${input.q}` : '')
  );
}

/** The mail an email that already has an account gets: a new verification link, or "already registered". */
async function mailExistingAccount(deps: SignUpDeps, email: string, intent: string): Promise<void> {
  const { db, config, mail, link } = deps;
  const existing = await userRepo.findOpenUserByEmail(db, email);
  if (!existing) return;
  if (!existing.email_verified_at) {
    await authRepo.voidOneTimeTokens(db, existing.id, 'verify-email');
    const token = await deps.issueOneTimeLink('verify-email', existing.id, config.VERIFY_TOKEN_TTL_HOURS * 60);
    await mail.send(MailTemplates.verifyEmail(existing.email, config.BRAND, link(`/verification?v=${token}${intent}`)));
  } else {
    await mail.send(MailTemplates.alreadyRegistered(existing.email, config.BRAND, link('/login'), link('/forgot-password')));
  }
}

export function createSignUp(deps: SignUpDeps) {
  const { db, config, mail, link } = deps;
  return {
    /** `ro` and `q` (a purchase intent from the redirect rules) ride along in the verification link. */
    async register(input: { email: string; password: string; ro?: string; q?: string }, ip: string): Promise<void> {
      await deps.throttle(`register:ip:${ip}`, REGISTER_PER_IP);
      const email = input.email.trim();
      if (!email) throw Errors.badRequest('Please set an email');
      if (!isValidEmail(email)) throw Errors.badRequest('Invalid email format');
      const problem = passwordProblem(input.password);
      if (problem) throw Errors.badRequest(problem);
      // The hash runs in every branch so timing does not tell existing accounts apart.
      const passwordHash = await hashPassword(input.password);
      const userId = await userRepo.insertUser(db, { email, passwordHash, verified: false });
      if (!(await deps.mayMail(normalizeEmail(email)))) return;
      const intent = intentOf(input);
      if (!userId) return mailExistingAccount(deps, email, intent);
      const token = await deps.issueOneTimeLink('verify-email', userId, config.VERIFY_TOKEN_TTL_HOURS * 60);
      await mail.send(MailTemplates.verifyEmail(email, config.BRAND, link(`/verification?v=${token}${intent}`)));
    },

    async verifyEmail(key: string): Promise<void> {
      const token = await authRepo.consumeOneTimeToken(db, 'verify-email', hashToken(key));
      if (!token?.user_id) throw Errors.badRequest('Invalid or expired verification link');
      await userRepo.markEmailVerified(db, token.user_id);
    },
  };
}
