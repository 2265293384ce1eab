import { packForgot, packLogin, packRegister, packReset, type LoginValues, type RegisterValues } from '@common/obfuscation';
import { api } from '@/lib/api';
import type { LoginOutcome } from './two-factor-api';

/** 200 → the access token, or (two-factor on) a pending second step; 401 → email not verified; anything else → failure. */
export function logIn(values: LoginValues): Promise<LoginOutcome> {
  return api.post('/authentication/login', packLogin(values), 'cookie');
}

export function register(values: RegisterValues): Promise<{ success: boolean }> {
  return api.post('/registration/submit', packRegister(values), 'none');
}

export function requestPasswordReset(email: string): Promise<unknown> {
  return api.post('/authentication/forgot-password', packForgot(email), 'none');
}

export function resetPassword(key: string, password: string): Promise<unknown> {
  return api.post('/authentication/reset-password', packReset({ key, password }), 'none');
}

export function verifyEmail(key: string): Promise<unknown> {
  return api.post('/authentication/verify-email', { k: key }, 'none');
}
