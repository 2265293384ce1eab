/** Credential rules shared by the sign-in screen and the profile page. */

export const EMAIL_MAX_LENGTH = 255;
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 55;

// A standard address: local part, "@", two or more dot-separated host labels. The same
// pattern on both sides: this module is shared by the dashboard and the server.
const EMAIL_PATTERN =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isValidEmail(email: string): boolean {
  return email.length <= EMAIL_MAX_LENGTH && EMAIL_PATTERN.test(email);
}

export interface PasswordChecks {
  /** 8 to 55 characters. */
  length: boolean;
  /** At least one uppercase letter and one digit. */
  upperAndDigit: boolean;
  /** Optional: anything that is not a letter or digit. */
  special: boolean;
}

export function checkPassword(password: string): PasswordChecks {
  return {
    length: password.length >= PASSWORD_MIN_LENGTH && password.length <= PASSWORD_MAX_LENGTH,
    upperAndDigit: /[A-Z]/.test(password) && /[0-9]/.test(password),
    special: /[^A-Za-z0-9]/.test(password),
  };
}

/** The required rules; the special character only raises the strength. */
export function meetsPasswordRules(password: string): boolean {
  const checks = checkPassword(password);
  return checks.length && checks.upperAndDigit;
}

export type PasswordStrength = 'none' | 'weak-2' | 'weak' | 'okay' | 'strong';

/**
 * Strength scoring: one point for the length rule, one for an uppercase letter plus a
 * digit; a special character is counted separately. Mapping chosen here:
 *
 *   nothing typed                    → none
 *   0 points (typed, no rule met)    → weak-2  (the weakest level)
 *   1 point                          → weak
 *   2 points, no special character   → okay    (meets the rules)
 *   2 points and a special character → strong
 *
 * A special character cannot lift a password that breaks a required rule: it would still
 * be refused, so calling it better than "weak" would mislead.
 */
export function passwordStrength(password: string): PasswordStrength {
  if (!password) return 'none';
  const checks = checkPassword(password);
  const points = Number(checks.length) + Number(checks.upperAndDigit);
  if (points === 0) return 'weak-2';
  if (points === 1) return 'weak';
  return checks.special ? 'strong' : 'okay';
}
