/** The TypeBox schemas that monitoring's routes share, on the dashboard and on /v2. */
import { Type } from '@fastify/type-provider-typebox';
import { ErrorBody } from '../infra/errors';

export const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 429: ErrorBody };
/** Ids are strings (bigint); a JSON number is read as one too. */
export const Id = Type.Union([Type.String({ maxLength: 64 }), Type.Integer()]);
export const Ids = Type.Array(Id, { maxItems: 10_000 });
/** Values are checked by the service, so that each rule answers with its own message. */
export const Value = Type.String({ maxLength: 4096 });
export const Success = Type.Object({ success: Type.Literal(true) });
