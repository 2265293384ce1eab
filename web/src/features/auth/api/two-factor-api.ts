/**
 * Two-factor sign-in and settings (server/src/auth/README.md, "Two-factor authentication").
 * Passkey ceremonies run through @simplewebauthn/browser.
 */
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { api } from '@/lib/api';

/** One second factor for the sign-in's second step or a step-up (one field set). */
export interface SecondFactorProof {
  code?: string;
  recovery_code?: string;
  passkey?: unknown;
}

export interface TwoFactorStatus {
  enabled: boolean;
  totp: boolean;
  totp_enabled_at: string | null;
  recovery_codes_left: number;
  passkeys: { id: string; name: string; created_at: string; last_used_at: string | null }[];
}

export type LoginOutcome = { auth_token: string } | { second_factor_required: true; pending_token: string; methods: string[] };

/** The second step of a password sign-in. */
export function completeSecondFactor(pendingToken: string, proof: SecondFactorProof): Promise<{ auth_token: string }> {
  return api.post('/authentication/second-factor', { pending_token: pendingToken, ...proof }, 'cookie');
}

/** A passkey assertion: for the sign-in's second step (its pending token) or alone (none). */
export async function passkeyAssertion(pendingToken?: string): Promise<unknown> {
  const optionsJSON = await api.post<Parameters<typeof startAuthentication>[0]['optionsJSON']>(
    '/authentication/passkey-options',
    pendingToken ? { pending_token: pendingToken } : {},
    'none',
  );
  return startAuthentication({ optionsJSON });
}

/** "Sign in with a passkey": no email or password. */
export async function signInWithPasskey(remember: boolean): Promise<{ auth_token: string }> {
  const response = await passkeyAssertion();
  return api.post('/authentication/passkey', { response, remember }, 'cookie');
}

/** A passkey assertion of the signed-in account, for a step-up. */
export async function stepUpPasskey(): Promise<SecondFactorProof> {
  const optionsJSON = await api.post<Parameters<typeof startAuthentication>[0]['optionsJSON']>('/user/two-factor/passkey-options');
  return { passkey: await startAuthentication({ optionsJSON }) };
}

export const twoFactorApi = {
  status: () => api.get<TwoFactorStatus>('/user/two-factor'),
  begin: (proof: SecondFactorProof = {}) => api.post<{ secret: string; uri: string; qr_code: string }>('/user/two-factor/totp/begin', proof),
  confirm: (code: string) => api.post<{ recovery_codes: string[] }>('/user/two-factor/totp/confirm', { code }),
  disable: (proof: SecondFactorProof) => api.post<{ success: boolean }>('/user/two-factor/totp/disable', proof),
  regenerate: (proof: SecondFactorProof) => api.post<{ recovery_codes: string[] }>('/user/two-factor/recovery-codes', proof),
  removePasskey: (id: string, proof: SecondFactorProof) => api.post<{ success: boolean }>('/user/two-factor/passkeys/remove', { id, ...proof }),
  async addPasskey(name: string, proof: SecondFactorProof = {}): Promise<{ recovery_codes: string[] | null }> {
    const optionsJSON = await api.post<Parameters<typeof startRegistration>[0]['optionsJSON']>('/user/two-factor/passkeys/options', proof);
    const response = await startRegistration({ optionsJSON });
    return api.post('/user/two-factor/passkeys', { name, response });
  },
};
