/**
 * A notice in one account's inbox, for features that tell the owner something happened to
 * the account (support turning two-factor sign-in off). The inbox itself is
 * notifications-service.ts.
 */
export { insertNotification, type NewNotification } from './notifications-repository';
