/**
 * RFC 1035 master files (§5): `$ORIGIN`, `$TTL`, relative names and `@`, an omitted owner
 * (the previous one), TTL and class (optional, either order), parentheses spanning lines,
 * quoted strings and `;` comments. A, AAAA, MX, NS and CNAME records become passive DNS
 * rows seen at the zone's time (--observed-at, else the file's mtime), so importing
 * consecutive files of a zone keeps each record's first time and moves its last; every
 * owner name is a name seen. `$INCLUDE` is refused (an import reads only the files given).
 */
import { reverseName } from '../../names';
import { BadRecord, hostOrNull, type ParseContext, type RecordParser } from './common';
import { stagePdns } from './pdns';

const STORED_TYPES = new Set(['A', 'AAAA', 'MX', 'NS', 'CNAME']);
const CLASSES = new Set(['IN', 'CH', 'HS', 'CS']);
const TTL = /^\d+[smhdw]?(?:\d+[smhdw])*$/i;
/** Tokens of one record (its lines joined by parentheses): at most this many. */
const MAX_TOKENS = 10_000;

/** Splits one line into tokens, keeping the parenthesis depth across lines. */
function tokenize(text: string, state: { depth: number; tokens: string[] }): void {
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t') {
      i++;
    } else if (c === ';') {
      return;
    } else if (c === '(') {
      state.depth++;
      i++;
    } else if (c === ')') {
      if (--state.depth < 0) throw new BadRecord('unbalanced parenthesis');
      i++;
    } else if (c === '"') {
      let j = i + 1;
      let value = '';
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\' && j + 1 < text.length) j++;
        value += text[j];
        j++;
      }
      if (j >= text.length) throw new BadRecord('unterminated quoted string');
      state.tokens.push(value);
      i = j + 1;
    } else {
      let j = i;
      while (j < text.length && !' \t;()"'.includes(text[j]!)) j++;
      state.tokens.push(text.slice(i, j));
      i = j;
    }
    if (state.tokens.length > MAX_TOKENS) throw new BadRecord('record too long');
  }
}

/** What a zone file's records are read against: its `$ORIGIN` and the previous record's owner. */
interface Zone {
  ctx: ParseContext;
  /** The zone's time, in seconds. */
  seen: number;
  origin: string | null;
  lastOwner: string | null;
}

/** A name of the file as an absolute host (no final dot). */
function absolute(zone: Zone, name: string): string {
  if (name.includes('\\')) throw new BadRecord('escaped characters in names are not supported');
  if (name === '@') {
    if (zone.origin === null) throw new BadRecord('@ without $ORIGIN');
    return zone.origin;
  }
  if (name.endsWith('.')) return name.slice(0, -1);
  if (zone.origin === null) throw new BadRecord('relative name without $ORIGIN');
  return zone.origin === '' ? name : `${name}.${zone.origin}`;
}

/** `$ORIGIN NAME` and `$TTL` (ignored: times come from the zone, not its TTLs); any other directive is refused. */
function directive(zone: Zone, tokens: string[]): void {
  const head = tokens[0]!;
  const name = head.toUpperCase();
  if (name === '$ORIGIN') {
    if (tokens.length < 2) throw new BadRecord('$ORIGIN without a name');
    const origin = absolute(zone, tokens[1]!);
    if (origin !== '' && hostOrNull(origin) === null) throw new BadRecord('$ORIGIN is not a host name');
    zone.origin = origin.toLowerCase();
    return;
  }
  if (name === '$TTL') return;
  throw new BadRecord(`${head.slice(0, 20)} is not supported`);
}

/** One record: its owner (given, or the previous one), optional TTL and class, type and data. */
function entry(zone: Zone, tokens: string[], ownerOmitted: boolean): void {
  const head = tokens[0]!;
  if (head.startsWith('$')) return directive(zone, tokens);
  let i = 0;
  let owner: string;
  if (ownerOmitted) {
    if (zone.lastOwner === null) throw new BadRecord('no owner name');
    owner = zone.lastOwner;
  } else {
    owner = absolute(zone, head);
    i = 1;
  }
  while (i < tokens.length && (TTL.test(tokens[i]!) || CLASSES.has(tokens[i]!.toUpperCase()))) i++;
  if (i >= tokens.length) throw new BadRecord('no record type');
  const type = tokens[i]!.toUpperCase();
  const rdata = tokens.slice(i + 1);
  zone.lastOwner = owner;
  if (owner === '' || owner.split('.').includes('*')) {
    zone.ctx.good(); // the root or a wildcard: no name to keep
    return;
  }
  const ownerHost = hostOrNull(owner);
  if (ownerHost === null) throw new BadRecord('owner is not a host name');
  if (STORED_TYPES.has(type)) {
    if (rdata.length === 0) throw new BadRecord(`${type} without data`);
    const answer = type === 'MX' ? `${rdata[0]} ${absolute(zone, rdata[1] ?? '')}` : type === 'A' || type === 'AAAA' ? rdata[0]! : absolute(zone, rdata[0]!);
    if (!stagePdns(zone.ctx, ownerHost, type, [answer], zone.seen, zone.seen, 1)) throw new BadRecord(`invalid ${type} data`);
  } else {
    zone.ctx.stage.addName(reverseName(ownerHost), zone.seen, zone.seen);
  }
  zone.ctx.good();
}

export function zoneParser(ctx: ParseContext): RecordParser {
  const zone: Zone = { ctx, seen: Math.floor(ctx.observedAt.getTime() / 1000), origin: null, lastOwner: null };
  const state = { depth: 0, tokens: [] as string[] };
  let startLine = 0;
  let startText = '';
  let ownerOmitted = false;
  return {
    line(text, lineNo) {
      if (state.depth === 0) {
        state.tokens = [];
        startLine = lineNo;
        startText = text;
        ownerOmitted = text.startsWith(' ') || text.startsWith('\t');
      }
      try {
        tokenize(text, state);
        if (state.depth > 0) return;
        if (state.tokens.length > 0) entry(zone, state.tokens, ownerOmitted);
      } catch (e) {
        if (!(e instanceof BadRecord)) throw e;
        state.depth = 0;
        ctx.bad(startLine, e.message, startText);
      }
    },
    end() {
      if (state.depth > 0) ctx.bad(startLine, 'unclosed parenthesis', startText);
    },
  };
}
