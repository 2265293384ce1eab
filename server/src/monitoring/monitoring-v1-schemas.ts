/** What monitoring's Monitor API V1 calls share: their tags, security and V1's error codes. */
import { ErrorBody } from '../infra/errors';

export const v1Tags = ['monitor api v1'];
export const v1Security = [{ bearer: [] }];
/** V1's codes: 302 for a missing or invalid field, its one 404 for an id that is not the caller's. */
export const v1Errors = { 302: ErrorBody, 401: ErrorBody, 404: ErrorBody, 429: ErrorBody };
