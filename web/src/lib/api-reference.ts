/**
 * The documented calls' reference, generated from the route schemas
 * (web/src/generated/api-reference.json; scripts/lib/api-reference.ts says how and why):
 * method, path and body fields. A page writes only what a schema does not: the call's
 * anchor, title and prose, the sample's body and the documented answer.
 * Imported by relative paths from files the server's tests import too.
 */
import reference from '../generated/api-reference.json' with { type: 'json' };
import type { DocCall, FieldRow } from './api-samples';

export type OperationId = keyof typeof reference;

interface ReferenceField {
  name: string;
  type: string;
  required: boolean;
  default?: unknown;
  description?: string;
}

/**
 * A field to show: its name, or its name and a presence the schema cannot say (a shared
 * call's field that one kind of request needs, or a field required unless another is sent).
 */
export type FieldPick = string | [name: string, presence: string];

export interface CallProse extends Omit<DocCall, 'method' | 'path' | 'fields'> {
  /** The fields to show, in order; every body field of the schema when left out. */
  fields?: FieldPick[];
}

/** A field's presence from its schema: its default when it has one, else required or optional. */
function presence(field: ReferenceField): string {
  if (field.default !== undefined) return String(field.default);
  return field.required ? 'required' : 'optional';
}

function fieldRows(operationId: OperationId, picks: FieldPick[] | undefined): FieldRow[] {
  const fields: ReferenceField[] = reference[operationId].fields;
  const byName = new Map(fields.map((field) => [field.name, field]));
  const chosen = picks ?? fields.map((field) => field.name);
  return chosen.map((pick) => {
    const [name, shownPresence] = typeof pick === 'string' ? [pick, undefined] : pick;
    const field = byName.get(name);
    if (!field) throw new Error(`${operationId} has no field ${name}`);
    return [name, field.type, shownPresence ?? presence(field), field.description ?? ''];
  });
}

/** A documented call: the schema's method, path and fields, with the page's prose and sample. */
export function documentedCall(operationId: OperationId, prose: CallProse): DocCall {
  const { method, path } = reference[operationId];
  if (method !== 'GET' && method !== 'POST') throw new Error(`${operationId}: ${method}`);
  return { ...prose, method, path, fields: fieldRows(operationId, prose.fields) };
}

/** The method and path of a call, as `POST /v2/search`. */
export function endpointOf(operationId: OperationId): string {
  const { method, path } = reference[operationId];
  return `${method} ${path}`;
}

/** A call's field table rows (for calls documented without the per-call layout). */
export const referenceFields = (operationId: OperationId, picks?: FieldPick[]): FieldRow[] => fieldRows(operationId, picks);
