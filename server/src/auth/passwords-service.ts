/**
 * Password hashing and the password rules, for what sets a password outside sign-up: the
 * operator's `user:create` and the load test's accounts. Auth keeps the rules in one place.
 */
export { hashPassword, passwordProblem } from './passwords';
