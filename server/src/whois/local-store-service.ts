/**
 * The local WHOIS store as tools outside the server use it (scripts/whois-bench.ts): its
 * provider's queries, and the reversed-name form its rows keep names in.
 */
export { createLocalProvider } from './local-provider';
export { reverseName } from './names';
export type { ReverseKind } from './provider';
