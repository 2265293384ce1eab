/**
 * The public APIs (/v2 and the Monitor API) drop body properties their route does not
 * declare, where the dashboard refuses them: clients written for other services send extras
 * (one sends `channels` with create-task) and expect to be served. A dropped property is gone
 * before validation, so it can never act (no credits, roles or ids slip through), and the
 * route's schema still refuses wrong types and missing fields of the properties it declares.
 * Declared nested objects are cleaned the same way.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

interface ObjectSchema {
  properties?: Record<string, unknown>;
}

function dropUnknown(value: unknown, schema: ObjectSchema | undefined): void {
  const properties = schema?.properties;
  if (!properties || typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const body = value as Record<string, unknown>;
  for (const key of Object.keys(body)) {
    if (!Object.hasOwn(properties, key)) delete body[key];
    else dropUnknown(body[key], properties[key] as ObjectSchema);
  }
}

/** A `preValidation` hook for a plugin whose routes accept undeclared body properties by dropping them. */
export function dropUnknownBodyProperties(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  dropUnknown(request.body, request.routeOptions.schema?.body as ObjectSchema | undefined);
  done();
}
