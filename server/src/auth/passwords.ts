import { hash, verify } from '@node-rs/argon2';
import { PASSWORD_MAX_LENGTH, meetsPasswordRules } from '../common/credentials';

// argon2id with the library's defaults (m=19 MiB, t=2, p=1: OWASP's minimum). The
// Algorithm const enum is not imported: it cannot be used under isolatedModules, and
// argon2id is the default.
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

let dummyHash: Promise<string> | undefined;

/** Verifies; for an unknown user pass `undefined` and a dummy hash runs so timing matches. */
export async function verifyPassword(storedHash: string | undefined, password: string): Promise<boolean> {
  if (!storedHash) {
    dummyHash ??= hash('dummy-password-for-timing');
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(storedHash, password).catch(() => false);
}

export { isValidEmail } from '../common/credentials';

/** Spec 1 §5: 8 to 55 characters, at least one uppercase letter and one digit. */
export function passwordProblem(password: string): string | null {
  if (password.length === 0) return 'Please set a password';
  if (password.length > PASSWORD_MAX_LENGTH) return `Invalid password format (max length ${PASSWORD_MAX_LENGTH})`;
  if (!meetsPasswordRules(password)) return 'Password must be 8 to 55 characters with at least 1 uppercase letter and 1 number';
  return null;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
