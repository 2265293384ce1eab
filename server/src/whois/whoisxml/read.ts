/**
 * WhoisXML's answers are hostile JSON: each value is checked and bounded on its way into the
 * wire shapes (no unknown member, no string over MAX_TEXT, lists cut).
 */
import { checkDomain, checkIp, type WhoisContact } from '../../common/whois-rules';

const MAX_TEXT = 1000;
const MAX_LIST = 32;

export type Obj = Record<string, unknown>;
export const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
export function str(v: unknown, max = MAX_TEXT): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return t === '' || t.length > max ? undefined : t;
}
export function int(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
export function strings(v: unknown, max = MAX_LIST): string[] | undefined {
  const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/\s+/) : [];
  const out = [...new Set(list.map((s) => str(s, 253)).filter((s): s is string => s !== undefined))].slice(0, max);
  return out.length > 0 ? out : undefined;
}
export function hostNames(v: unknown): string[] | undefined {
  const out = (strings(v, MAX_LIST) ?? []).map((h) => checkDomain(h)).flatMap((c) => (c.ok ? [c.value] : []));
  return out.length > 0 ? [...new Set(out)] : undefined;
}
export function ips(v: unknown): string[] | undefined {
  const out = (strings(v, MAX_LIST) ?? []).map((ip) => checkIp(ip)).flatMap((c) => (c.ok ? [c.value] : []));
  return out.length > 0 ? [...new Set(out)] : undefined;
}
export function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
export function nonEmpty<T extends object>(value: T): T | undefined {
  const out = defined(value);
  return Object.keys(out).length > 0 ? out : undefined;
}

export function contact(v: unknown): WhoisContact | undefined {
  const c = obj(v);
  if (!c) return undefined;
  const countryCode = str(c.countryCode, 2);
  return nonEmpty<WhoisContact>({
    name: str(c.name),
    organization: str(c.organization),
    state: str(c.state),
    country: str(c.country),
    countryCode: countryCode && /^[a-z]{2}$/i.test(countryCode) ? countryCode.toUpperCase() : undefined,
    email: str(c.email, 254),
  });
}

export function listOf<T>(v: unknown, max: number, item: (x: unknown) => T | undefined): T[] {
  return (Array.isArray(v) ? v.slice(0, max) : []).map(item).filter((x): x is T => x !== undefined);
}
