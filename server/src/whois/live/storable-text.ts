/**
 * Text from a WHOIS server or an API as it can be kept: PostgreSQL refuses NUL in text and
 * a lone UTF-16 surrogate in jsonb, and control characters have no place in a field.
 */

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]+/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Control characters (NUL, CR, tabs…) become one space, lone surrogates U+FFFD. */
export function storableText(value: string): string {
  return value.replace(CONTROL, ' ').replace(LONE_SURROGATE, '\ufffd');
}
