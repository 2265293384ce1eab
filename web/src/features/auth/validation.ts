/** Sign-in form checks. Each returns the messages to show, empty when valid. */
import { isValidEmail, meetsPasswordRules, PASSWORD_MAX_LENGTH } from '@common/credentials';

export function validateLogin(email: string, password: string): string[] {
  const errors: string[] = [];
  if (!email) errors.push('Please input an email');
  if (!password) errors.push('Please input a password');
  return errors;
}

/** A new password: required, at most 55 characters, then the rules (same wording as the server). */
function validateNewPassword(password: string): string[] {
  if (!password) return ['Please set a password'];
  if (password.length > PASSWORD_MAX_LENGTH) return [`Invalid password format (max length ${PASSWORD_MAX_LENGTH})`];
  if (!meetsPasswordRules(password)) return ['Password must be 8 to 55 characters with at least 1 uppercase letter and 1 number'];
  return [];
}

export function validateRegister(email: string, password: string): string[] {
  const errors: string[] = [];
  if (!email) errors.push('Please set an email');
  else if (!isValidEmail(email)) errors.push('Invalid email format');
  return [...errors, ...validateNewPassword(password)];
}

export function validateForgot(email: string): string[] {
  if (!email) return ['Empty Email'];
  return isValidEmail(email) ? [] : ['Invalid email format'];
}

export function validateReset(password: string): string[] {
  return validateNewPassword(password);
}
