/**
 * Delivery: monitoring's alerts out to their channels (email, SMS, webhooks) from the
 * deliver queue, and its two public routes (unsubscribe, Twilio's status callback).
 */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { setUpDelivery } from './delivery-setup';

export const deliveryPlugin = fp<AppDeps>(
  async (app, { db, config, mail, jwtSecret, metrics }) => {
    const delivery = setUpDelivery(app, { db, config, mail, serverSecret: jwtSecret, onOutcome: metrics?.delivery });
    app.jobs.register('deliver', ({ deliveryId }, attempt) => delivery.process(deliveryId, attempt));
  },
  { name: 'delivery', fastify: '5.x', dependencies: ['jobs', 'monitoring'] },
);
