/**
 * The query a tab sends, from what the user typed, checked by the shared rules
 * (common/whois-rules.ts: the server applies the same ones). Pure: no React.
 */
import {
  checkWhoisQuery,
  formatReverseWhoisQuery,
  normaliseTerms,
  splitTerms,
  type Checked,
  type ReverseWhoisMode,
  type WhoisQuery,
  type WhoisTool,
} from '@common/whois-rules';

/** The reverse WHOIS form: the mode and two comma-separated term lists. */
export interface ReverseWhoisInput {
  mode: ReverseWhoisMode;
  include: string;
  exclude: string;
}

/** The normalised text of a checked query, as `POST /whois` takes it. */
export function queryText(query: WhoisQuery): string {
  switch (query.tool) {
    case 'reverse_whois':
      return formatReverseWhoisQuery(query.terms);
    case 'reverse_ip':
      return query.ip;
    case 'reverse_mx':
    case 'reverse_ns':
      return query.host;
    default:
      return query.domain;
  }
}

/**
 * Checks a tab's input and gives the text to send, or the documented message. Reverse WHOIS
 * terms go through the same `mode:include:exclude` form the server parses, so a term the
 * form cannot carry (a colon) is refused here as there.
 */
export function preparedQuery(tool: WhoisTool, text: string, reverse: ReverseWhoisInput): Checked<string> {
  const raw =
    tool === 'reverse_whois'
      ? formatReverseWhoisQuery({ mode: reverse.mode, include: splitTerms(reverse.include), exclude: splitTerms(reverse.exclude) })
      : text;
  const checked = checkWhoisQuery(tool, raw);
  return checked.ok ? { ok: true, value: queryText(checked.value) } : checked;
}

/** Terms typed on one side, counted as the rules count them (trimmed, non-empty, distinct). */
export function termCount(text: string): number {
  return normaliseTerms(splitTerms(text)).length;
}
