/** What other features may use of auth (the rest is the feature's own). */
export { stepUpPasskey, twoFactorApi } from './api/two-factor-api';
export type { SecondFactorProof, TwoFactorStatus } from './api/two-factor-api';
