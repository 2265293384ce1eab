/** Wires alert delivery into the app: the `deliver` processor's service and its two public routes. */
import type { FastifyInstance } from 'fastify';
import { createDeliveryService, type DeliveryService } from './deliver';
import { unsubscribeKey } from './signing';
import { registerUnsubscribeRoutes } from './unsubscribe-routes';
import { registerTwilioRoutes } from './twilio-routes';

export function setUpDelivery(app: FastifyInstance, deps: Parameters<typeof createDeliveryService>[0]): DeliveryService {
  const delivery = createDeliveryService(deps);
  registerUnsubscribeRoutes(app, { db: deps.db, key: unsubscribeKey(deps.serverSecret), brand: deps.config.BRAND });
  registerTwilioRoutes(app, { db: deps.db, publicUrl: deps.config.publicUrl, authToken: deps.config.TWILIO_AUTH_TOKEN });
  return delivery;
}
