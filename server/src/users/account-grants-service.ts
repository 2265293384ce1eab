/**
 * What an operator grants an account in one statement (verified, subscription days,
 * credits, plans), for tools that set accounts up outside the operator commands (the load
 * test). The operator's own grants go through user:create and user:grant, which add a
 * ledger row per credit kind.
 */
export { applyGrant, type Grant } from './user-repository';
