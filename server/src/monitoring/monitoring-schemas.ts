/** The TypeBox schemas that monitoring's routes share, on the dashboard and on /v2. */
import { Type } from '@fastify/type-provider-typebox';
import { ErrorBody } from '../infra/errors';

export const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 429: ErrorBody };
/** Ids are strings (bigint); a JSON number is read as one too. */
export const Id = Type.Union([Type.String({ maxLength: 64 }), Type.Integer()]);
/** An Id that says what it names: the public API's field tables show the description. */
export const IdField = (description: string) => Type.Union([Type.String({ maxLength: 64 }), Type.Integer()], { description });
export const Ids = Type.Array(Id, { maxItems: 10_000 });
/** Values are checked by the service, so that each rule answers with its own message. */
export const Value = Type.String({ maxLength: 4096 });
/** A Value that says what it holds (the service's rules, which its messages state too). */
export const ValueField = (description: string) => Type.String({ maxLength: 4096, description });
export const Success = Type.Object({ success: Type.Literal(true) });
