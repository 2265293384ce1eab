/**
 * One catalogue of coded errors and one error handler. Clients get `{"error": message}`
 * with the documented status; 5xx answers are generic and the detail goes to the log.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { Type } from '@fastify/type-provider-typebox';
import { plainValidationMessage } from './validation-messages';

/** The body of every error answer, on every surface: one schema, so the OpenAPI documents agree. */
export const ErrorBody = Type.Object({ error: Type.String() });

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const Errors = {
  badRequest: (message: string) => new AppError(400, 'BAD_REQUEST', message),
  malformedPayload: (message = 'Malformed request payload') => new AppError(400, 'MALFORMED_PAYLOAD', message),
  /** The public API's key header is missing, malformed or names no open account. */
  invalidApiKey: (header: string) => new AppError(400, 'INVALID_API_KEY', `Invalid or missing ${header} header`),
  unauthorized: (message = 'Unauthorized') => new AppError(401, 'UNAUTHORIZED', message),
  emailNotVerified: () => new AppError(401, 'EMAIL_NOT_VERIFIED', 'Email not verified'),
  invalidCredentials: () => new AppError(403, 'INVALID_CREDENTIALS', 'Invalid email or password'),
  /** Sign-in of an account an operator suspended (told only after the right password). */
  accountSuspended: (supportUrl: string) =>
    new AppError(403, 'ACCOUNT_SUSPENDED', `This account is suspended. Please contact support: ${supportUrl}`),
  forbidden: (message = 'Forbidden') => new AppError(403, 'FORBIDDEN', message),
  notFound: (message = 'Not Found') => new AppError(404, 'NOT_FOUND', message),
  tooManyRequests: (retryAfterMs: number) =>
    new AppError(429, 'TOO_MANY_REQUESTS', 'too many requests', {
      'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
    }),
  /** A valid search that ran past SEARCH_TIME_BUDGET_MS (a 400: the client should narrow it). */
  searchTimeout: (message: string) => new AppError(400, 'SEARCH_TIMEOUT', message),
  unavailable: () => new AppError(503, 'UNAVAILABLE', 'Service temporarily unavailable'),
};

function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  const message = String((error as Error).message ?? '');
  return (
    code === 'ECONNREFUSED' ||
    code === '57014' || // statement timeout
    code === '57P01' || // admin shutdown
    code === '08006' ||
    code === '08001' ||
    code === 'ECONNRESET' ||
    /timeout exceeded when trying to connect|Connection terminated|Query read timeout/i.test(message)
  );
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      if (error.statusCode >= 500) request.log.error({ err: error }, 'request failed');
      return reply.code(error.statusCode).headers(error.headers).send({ error: error.message });
    }
    const invalid = plainValidationMessage(error as FastifyError);
    if (invalid) return reply.code(400).send({ error: invalid });
    const status = (error as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      // Fastify's own client errors (bad JSON, body too large, unsupported media type).
      return reply.code(status).send({ error: error.message });
    }
    if (isDatabaseUnavailable(error)) {
      request.log.error({ err: error }, 'database unavailable');
      return reply.code(503).header('retry-after', '5').send({ error: 'Service temporarily unavailable' });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: 'Internal Server Error' });
  });
}
