/**
 * Text every store accepts: no NUL character (PostgreSQL refuses U+0000 in text and jsonb)
 * and no unpaired UTF-16 surrogate (JSON's `"\ud800"` parses into one; it has no UTF-8
 * form, so neither PostgreSQL nor the engine can take it). Shared by the server's request
 * guard (infra/text-input.ts) and the request decoding (obfuscation.ts).
 */

export type TextProblem = 'NUL' | 'surrogate';

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function textProblem(text: string): TextProblem | null {
  if (text.includes('\u0000')) return 'NUL';
  return LONE_SURROGATE.test(text) ? 'surrogate' : null;
}

/** What a refusal says of `where` (e.g. `body/query`). */
export function textProblemMessage(problem: TextProblem, where: string): string {
  return problem === 'NUL'
    ? `Invalid request: ${where} must not contain NUL characters`
    : `Invalid request: ${where} must not contain unpaired UTF-16 surrogates`;
}
