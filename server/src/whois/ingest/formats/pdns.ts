/**
 * Passive DNS Common Output Format (draft-dulaunoy-dnsop-passive-dns-cof): NDJSON with
 * `rrname, rrtype, rdata, time_first, time_last, count` (or `zone_time_first/last`);
 * `rdata` a string or an array of them.
 */
import { isIPv4, isIPv6 } from '../../../common/search-rules';
import { checkIp } from '../../../common/whois-rules';
import { BadRecord, epochSeconds, hostOrNull, parseJsonObject, type ParseContext, type RecordParser } from './common';

/** Answers of a line: at most this many; an answer of another type at most this long. */
const MAX_RDATA = 1000;
const MAX_RDATA_LENGTH = 1000;
const MAX_COUNT = 1e12;
const RRTYPE = /^[A-Z][A-Z0-9]{0,15}$/;

/** Types whose answer is a host: stored as the bare host, and kept as a name seen. */
const HOST_TYPES = new Set(['MX', 'NS', 'CNAME', 'PTR', 'DNAME']);

/**
 * An answer as stored: A dotted v4, AAAA canonical v6 (as reverse IP queries it), MX/NS/
 * CNAME the bare host (no preference, no final dot, lower case); null when invalid.
 */
export function storedRdata(rrtype: string, rdata: string): string | null {
  const value = rdata.trim();
  switch (rrtype) {
    case 'A':
      return isIPv4(value) ? value : null;
    case 'AAAA': {
      if (!isIPv6(value)) return null;
      const ip = checkIp(value);
      return ip.ok ? ip.value : null;
    }
    case 'MX': {
      const host = value.replace(/^\d{1,5}\s+/, '');
      return hostOrNull(host);
    }
    default:
      if (HOST_TYPES.has(rrtype)) return hostOrNull(value);
      return value.length > 0 && value.length <= MAX_RDATA_LENGTH ? value : null;
  }
}

/** Stages one record (owner as hostOrNull gives it, answers normalised); false when no answer is valid. */
export function stagePdns(ctx: ParseContext, rrname: string, rrtype: string, answers: readonly string[], first: number, last: number, count: number): boolean {
  let staged = false;
  const hostType = HOST_TYPES.has(rrtype);
  for (const answer of answers) {
    const rdata = storedRdata(rrtype, answer);
    if (rdata === null) continue;
    ctx.stage.addPdnsHost(rrname, rrtype, rdata, first, last, count, hostType ? rdata : null);
    staged = true;
  }
  return staged;
}

export function pdnsParser(ctx: ParseContext): RecordParser {
  return {
    line(text) {
      if (text.trim() === '') return;
      const obj = parseJsonObject(text);
      if (typeof obj.rrname !== 'string') throw new BadRecord('rrname missing');
      const rrname = hostOrNull(obj.rrname);
      if (rrname === null) throw new BadRecord('rrname is not a host name');
      const rrtype = typeof obj.rrtype === 'string' ? obj.rrtype.trim().toUpperCase() : '';
      if (!RRTYPE.test(rrtype)) throw new BadRecord('rrtype missing or invalid');
      const first = epochSeconds(obj.time_first ?? obj.zone_time_first, 'time_first');
      const last = epochSeconds(obj.time_last ?? obj.zone_time_last, 'time_last');
      if (first === null && last === null) throw new BadRecord('time_first and time_last missing');
      const a = first ?? last!;
      const b = last ?? first!;
      const count = obj.count === undefined || obj.count === null ? 1 : obj.count;
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_COUNT) throw new BadRecord('count is not a whole number from 1');
      const rdata = Array.isArray(obj.rdata) ? obj.rdata : [obj.rdata];
      if (rdata.length === 0 || rdata.length > MAX_RDATA || !rdata.every((r) => typeof r === 'string')) throw new BadRecord('rdata missing or not text');
      if (!stagePdns(ctx, rrname, rrtype, rdata as string[], Math.min(a, b), Math.max(a, b), count)) throw new BadRecord(`rdata is not a valid ${rrtype} answer`);
      ctx.good();
    },
    end() {},
  };
}
