// Types of pack.js (plain JavaScript so that k6 runs it), for the Node test that checks it.
import type { LoginFields, SearchFields } from '../../server/src/common/obfuscation';

export function randomToken(length?: number): string;
export function obfuscate(plain: string, nonce: string): string;
export function packLogin(values: { email: string; password: string; remember: boolean }): LoginFields;
export function packSearch(values: { query: string; type: string; page?: number; regex?: boolean; wildcard?: boolean; deduplicate?: boolean }): SearchFields;
