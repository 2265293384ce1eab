/**
 * The reference part of the dashboard's API documentation, read from the app's OpenAPI
 * document: for each public call (/v2 and the Monitor API V1), its method, path and body
 * fields (name, type, required or default, description). The route schemas are the
 * source; the pages keep their prose and runnable samples and look calls up by operationId.
 *
 * Why a committed file (web/src/generated/api-reference.json, written by
 * scripts/api-reference.ts) rather than the pages fetching /openapi.json: the pages render
 * at once, so a link to an #anchor lands on its section, and the browser tests see the same
 * page as today; the dashboard ships a few kilobytes of the calls it documents instead of
 * the whole document; and a schema change shows up in review as a change of the docs.
 * The drift test (server/test/dashboard/api-reference.test.ts) fails when the file differs
 * from what the schemas produce now.
 */

export interface ReferenceField {
  name: string;
  /** string, integer, boolean, or an array of one: string[]. */
  type: string;
  required: boolean;
  default?: unknown;
  description?: string;
}

export interface ReferenceCall {
  method: string;
  path: string;
  fields: ReferenceField[];
}

/** The documented calls by operationId, sorted. */
export type ApiReference = Record<string, ReferenceCall>;

interface Schema {
  type?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  default?: unknown;
  description?: string;
  const?: unknown;
}

interface Operation {
  operationId?: string;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

/** The public calls the dashboard documents. */
const DOCUMENTED = /^\/(v2|monitor-api\/v1)\//;

/** A field's type as the tables show it: a union of a string and anything else is a string. */
function typeName(schema: Schema): string {
  const options = schema.anyOf ?? schema.oneOf;
  if (options) {
    const types = options.map(typeName).filter((name) => name !== 'null');
    return types.includes('string') ? 'string' : (types[0] ?? 'string');
  }
  if (schema.type === 'array') return `${typeName(schema.items ?? {})}[]`;
  if (schema.type) return schema.type;
  return typeof schema.const === 'string' ? 'string' : 'string';
}

function fieldsOf(body: Schema | undefined): ReferenceField[] {
  const required = new Set(body?.required ?? []);
  return Object.entries(body?.properties ?? {}).map(([name, schema]) => ({
    name,
    type: typeName(schema),
    required: required.has(name),
    ...(schema.default !== undefined ? { default: schema.default } : {}),
    ...(schema.description ? { description: schema.description } : {}),
  }));
}

export function apiReference(document: OpenApiDocument): ApiReference {
  const calls: [string, ReferenceCall][] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    if (!DOCUMENTED.test(path)) continue;
    for (const [method, operation] of Object.entries(operations)) {
      if (!operation.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      const body = operation.requestBody?.content?.['application/json']?.schema;
      calls.push([operation.operationId, { method: method.toUpperCase(), path, fields: fieldsOf(body) }]);
    }
  }
  return Object.fromEntries(calls.sort(([a], [b]) => a.localeCompare(b)));
}

/** The file as committed: JSON with one line per call and per field, so a review reads its diff line by line. */
export function referenceText(reference: ApiReference): string {
  const calls = Object.entries(reference).map(([operationId, { method, path, fields }]) => {
    const rows = fields.map((field) => `      ${JSON.stringify(field)}`).join(',\n');
    const head = `  ${JSON.stringify(operationId)}: { "method": ${JSON.stringify(method)}, "path": ${JSON.stringify(path)}, "fields": [`;
    return rows ? `${head}\n${rows}\n    ] }` : `${head}] }`;
  });
  return `{\n${calls.join(',\n')}\n}\n`;
}
