/**
 * What the features' Monitor API V1 routes share with V1's plugin: its refusal of a value.
 * V1 answers a missing or invalid field with 302 (as documented) and the reason.
 */
import { AppError } from '../infra/errors';

export const V1_METHOD_NOT_ALLOWED = 'Method not allowed.';

/** A missing or invalid field: V1 answers 302 (as documented), with the reason. */
export class InvalidV1Field extends AppError {
  constructor(message: string) {
    super(302, 'INVALID_FIELD', message);
  }
}

export const invalidV1Field = (message: string) => new InvalidV1Field(message);
