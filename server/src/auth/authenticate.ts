/**
 * Bearer authentication: an HS256 access token (algorithm pinned; alg:none and others
 * are refused) whose session must still be live. Every session end — logout, password
 * change, closure, refresh-token reuse — takes effect on the next request.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyJwt from '@fastify/jwt';
import { Errors } from '../infra/errors';
import type { AuthService } from './auth-service';
import type { AccessClaims } from './auth-schemas';

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: AccessClaims;
    user: AccessClaims;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    authenticate(request: FastifyRequest): Promise<void>;
  }
}

export async function registerAuthentication(
  app: FastifyInstance,
  options: { secret: string; ttlSeconds: number; auth: () => AuthService },
): Promise<void> {
  await app.register(fastifyJwt, {
    secret: options.secret,
    sign: { algorithm: 'HS256', expiresIn: options.ttlSeconds },
    verify: { algorithms: ['HS256'] },
  });
  app.decorate('authenticate', async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    // The scheme is case-insensitive (RFC 9110 §11.1): `bearer` and `BEARER` too, as clients send either.
    if (!header || !/^Bearer [A-Za-z0-9_.-]+$/i.test(header)) throw Errors.unauthorized();
    let claims: AccessClaims;
    try {
      claims = await request.jwtVerify<AccessClaims>();
    } catch {
      throw Errors.unauthorized();
    }
    if (typeof claims.sub !== 'string' || typeof claims.sid !== 'string') throw Errors.unauthorized();
    if (!(await options.auth().isSessionActive(claims.sid, claims.sub))) throw Errors.unauthorized();
  });
}
