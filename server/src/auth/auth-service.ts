/**
 * Accounts and sessions, one module per use case: sign-up (sign-up.ts), the password step
 * of a sign-in with throttling (sign-in.ts) and its second step (sign-in-second-step.ts),
 * passkey sign-in (sign-in-passkey.ts), rotating refresh sessions with reuse detection
 * (session-tokens.ts), password reset (password-reset.ts) and change (password-change.ts),
 * account closure (account-closure.ts). No answer reveals whether an email has an account.
 */
import { createAccountClosure } from './account-closure';
import { createAuthContext, type AuthDeps } from './auth-context';
import { createPasswordChange } from './password-change';
import { createPasswordReset } from './password-reset';
import { createSessionTokens } from './session-tokens';
import { createPasswordSignIn } from './sign-in';
import { createPasskeySignIn } from './sign-in-passkey';
import { createSecondStep } from './sign-in-second-step';
import { createSignUp } from './sign-up';

export type { AuthDeps, SecondStepOutcome } from './auth-context';
export type { SessionTokens } from './session-tokens';
export type { SecondFactorPending } from './sign-in';
export type { SessionsEnded } from './sessions';

export function createAuthService(deps: AuthDeps) {
  const context = createAuthContext(deps);
  return {
    twoFactor: context.twoFactor,
    ...createSignUp(context),
    ...createPasswordSignIn(context),
    ...createSecondStep(context),
    ...createPasskeySignIn(context),
    ...createSessionTokens(context),
    ...createPasswordReset(context),
    ...createPasswordChange(context),
    ...createAccountClosure(context),
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
