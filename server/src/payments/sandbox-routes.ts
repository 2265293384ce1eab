/**
 * The sandbox card provider's browser side (docs/payments.md, "Card checkout"):
 * - `GET /sandbox/checkout.js` defines `window.SandboxCheckout`, Paddle.js's calling
 *   convention (`Environment.set`, `Initialize({token, eventCallback})`,
 *   `Checkout.open({items, customer, customData: {checkout_id}})`). `open` lays an overlay
 *   iframe over the page on `/sandbox/checkout?checkout_id=…`.
 * - That page shows what the payment row says (product, quantity, amount; nothing the
 *   browser sent) with **Pay** and **Cancel**. Its script is a file (`checkout-page.js`):
 *   the server's CSP allows no inline script. It tells the parent page what happened by
 *   `postMessage` to its own origin with type `sandbox-checkout`; the parent checks origin,
 *   source window and checkout id, calls the event callback (`checkout.completed` then
 *   `checkout.closed`, or `checkout.closed`) and removes the overlay.
 * - `POST /sandbox/checkouts/:id/pay` has the server sign and enqueue the provider's event.
 *   There is no bearer token in the overlay: the checkout id (a random UUID, known only to
 *   the buyer's page) is the capability, and it can only pay that checkout, with what the
 *   server priced.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { SandboxCardProvider } from './card/sandbox-provider';
import { ErrorBody } from '../infra/errors';
import { isPaymentId } from './payments';
import { findPayment } from './payments-repository';
import { registerSandboxPage } from './sandbox-page';
import { registerSandboxScripts } from './sandbox-scripts';

export function registerSandboxRoutes(app: FastifyInstance, deps: { db: Kysely<Database>; sandbox: SandboxCardProvider }) {
  registerSandboxScripts(app);
  registerSandboxPage(app, deps);
  registerSandboxCheckoutCalls(app, deps);
}

/** The overlay page's calls: pay the checkout, then watch it settle. */
function registerSandboxCheckoutCalls(app: FastifyInstance, deps: { db: Kysely<Database>; sandbox: SandboxCardProvider }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['payments'];
  const CheckoutParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
  r.post(
    '/sandbox/checkouts/:id/pay',
    {
      schema: {
        operationId: 'sandboxPay',
        tags,
        summary: 'Pay an open sandbox checkout (the checkout id is the capability): the provider event is signed and delivered to /webhooks/sandbox',
        params: CheckoutParams,
        response: { 200: Type.Object({ success: Type.Boolean() }), 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (request) => {
      await deps.sandbox.pay(request.params.id);
      return { success: true };
    },
  );

  r.get(
    '/sandbox/checkouts/:id',
    {
      schema: {
        operationId: 'sandboxCheckoutStatus',
        tags,
        summary: "A sandbox checkout's status (pending, paid, refunded, expired)",
        params: CheckoutParams,
        response: { 200: Type.Object({ status: Type.String() }), 404: ErrorBody },
      },
    },
    async (request, reply) => {
      const id = request.params.id;
      const payment = isPaymentId(id) ? await findPayment(deps.db, id) : undefined;
      if (!payment || payment.provider !== 'sandbox') return reply.code(404).send({ error: 'Not Found' });
      return { status: payment.status };
    },
  );
}
