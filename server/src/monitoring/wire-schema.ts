/** Ties a route's response schema to its wire type of common/monitoring-wire.ts. */
import type { Static, TSchema } from 'typebox';

/**
 * The schema, unchanged, when it describes the wire type `Wire` (each assignable to the
 * other): a drift between a response schema and the shared wire type fails the type check.
 */
export function wireSchema<Wire>() {
  return <S extends TSchema>(schema: S & ([Static<S>] extends [Wire] ? ([Wire] extends [Static<S>] ? unknown : never) : never)): S => schema;
}
