/**
 * A refused request body, query or parameter in plain words: "page must be at most 499"
 * instead of the validator's "body/page must be <= 499", "must be integer" or "must be equal
 * to one of the allowed values". Used by every error handler (the dashboard's routes, /v2,
 * the Monitor API V1), so a client or a toast reads the same sentence.
 */
import type { FastifyError } from 'fastify';

interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

const TYPE_WORDS: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'empty',
};

/** `/a/1/b` → `a[1].b`; the whole input when empty. */
function fieldName(path: string, child?: unknown): string {
  const parts = path.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (typeof child === 'string') parts.push(child);
  let name = '';
  for (const part of parts) name += /^\d+$/.test(part) ? `[${part}]` : name ? `.${part}` : part;
  return name || 'the request';
}

function describe(error: SchemaError, all: SchemaError[]): string {
  const field = fieldName(error.instancePath);
  const p = error.params;
  switch (error.keyword) {
    case 'required':
      return `${fieldName(error.instancePath, p.missingProperty)} is required`;
    case 'additionalProperties':
      return `${fieldName(error.instancePath, p.additionalProperty)} is not a known field`;
    case 'type': {
      const types = String(p.type).split(',').map((t) => TYPE_WORDS[t] ?? t);
      return `${field} must be ${types.join(' or ')}`;
    }
    case 'minimum':
      return `${field} must be at least ${p.limit}`;
    case 'exclusiveMinimum':
      return `${field} must be more than ${p.limit}`;
    case 'maximum':
      return `${field} must be at most ${p.limit}`;
    case 'exclusiveMaximum':
      return `${field} must be less than ${p.limit}`;
    case 'minLength':
      return Number(p.limit) <= 1 ? `${field} must not be empty` : `${field} must be at least ${p.limit} characters long`;
    case 'maxLength':
      return `${field} must be at most ${p.limit} characters long`;
    case 'minItems':
      return `${field} must hold at least ${p.limit} item${Number(p.limit) === 1 ? '' : 's'}`;
    case 'maxItems':
      return `${field} must hold at most ${p.limit} items`;
    case 'pattern':
    case 'format':
      return `${field} is not in the expected format`;
    case 'enum':
      return `${field} must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
    case 'anyOf': {
      // A union of literals: every allowed value of this field, as one sentence.
      const allowed = all.filter((e) => e.keyword === 'const' && e.instancePath === error.instancePath).map((e) => String(e.params.allowedValue));
      return allowed.length > 0 ? `${field} must be one of: ${[...new Set(allowed)].join(', ')}` : `${field} is not valid`;
    }
    default:
      return `${field} is not valid`;
  }
}

/** The refusal's sentence, or undefined when `error` is no schema refusal. */
export function plainValidationMessage(error: FastifyError): string | undefined {
  const errors = error.validation as SchemaError[] | undefined;
  if (!errors || errors.length === 0) return undefined;
  return `Invalid request: ${describe(errors[0]!, errors)}`;
}
