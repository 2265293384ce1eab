/** What other features may use of user (the rest is the feature's own). */
export { refreshUser, useUser } from './api/use-user';
export type { User } from './api/use-user';
