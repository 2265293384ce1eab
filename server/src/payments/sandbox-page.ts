/**
 * The sandbox overlay's page (`GET /sandbox/checkout?checkout_id=…`): what the payment row
 * says (product, quantity, amount; nothing the browser sent) with **Pay** and **Cancel**, or
 * why there is nothing to pay. Framable by our own pages only (it is an iframe of the dashboard).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { centsToUsd, productName } from '../common/catalogue';
import { escapeHtml } from '../infra/link-page';
import { isPaymentId, type Payment } from './payments';
import { findPayment } from './payments-repository';

// The web routes' CSP, but framable by our own pages (the overlay is an iframe of the dashboard).
const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
  "form-action 'none'",
].join('; ');

function page(body: string, checkoutId: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sandbox checkout</title>
<style>
  body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #0f172a; background: #fff; }
  main { padding: 24px; }
  h1 { font-size: 18px; margin: 0 0 4px; }
  .note { color: #64748b; font-size: 13px; margin: 0 0 20px; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: 8px 16px; margin: 0 0 24px; }
  dt { color: #64748b; } dd { margin: 0; text-align: right; font-weight: 600; }
  .actions { display: flex; flex-direction: column; gap: 10px; }
  button { font: inherit; padding: 10px 14px; border-radius: 8px; border: 1px solid #cbd5e1; background: #fff; cursor: pointer; }
  button.pay { background: #2563eb; border-color: #2563eb; color: #fff; font-weight: 600; }
  button:disabled { opacity: .6; cursor: default; }
  #status { min-height: 20px; margin: 12px 0 0; color: #334155; font-size: 13px; }
</style></head>
<body><main id="sandbox-checkout" data-checkout-id="${escapeHtml(checkoutId)}">
${body}
<p id="status" role="status" aria-live="polite"></p>
</main><script src="/sandbox/checkout-page.js"></script></body></html>`;
}

const usd = (cents: number) => `$${centsToUsd(cents).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

function checkoutBody(payment: Payment): string {
  return `<h1>Sandbox checkout</h1>
<p class="note">Test mode: no card is charged.</p>
<dl>
  <dt>Product</dt><dd id="product">${escapeHtml(productName(payment.sku))}</dd>
  <dt>Quantity</dt><dd id="quantity">${payment.quantity.toLocaleString('en-US')}</dd>
  <dt>Total</dt><dd id="amount">${usd(payment.amount_cents)}</dd>
</dl>
<div class="actions"><button type="button" class="pay" id="pay">Pay ${usd(payment.amount_cents)}</button><button type="button" id="cancel">Cancel</button></div>`;
}

const framable = async (_request: unknown, reply: FastifyReply, payload: unknown) => {
  reply.header('content-security-policy', PAGE_CSP);
  reply.header('x-frame-options', 'SAMEORIGIN');
  return payload;
};

export function registerSandboxPage(app: FastifyInstance, deps: { db: Kysely<Database> }): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/sandbox/checkout',
    {
      onSend: framable,
      schema: {
        operationId: 'sandboxCheckoutPage',
        tags: ['payments'],
        summary: 'The sandbox overlay page: what the checkout costs, Pay and Cancel',
        querystring: Type.Object({ checkout_id: Type.String({ maxLength: 64 }) }),
      },
    },
    async (request, reply) => {
      const id = request.query.checkout_id;
      const payment = isPaymentId(id) ? await findPayment(deps.db, id) : undefined;
      const cancel = '<div class="actions"><button type="button" id="cancel">Close</button></div>';
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
      if (!payment || payment.provider !== 'sandbox' || payment.method !== 'card') {
        return reply.code(404).send(page(`<h1>Checkout not found</h1><p class="note">This checkout does not exist.</p>${cancel}`, id));
      }
      if (payment.status !== 'pending') {
        return reply.code(409).send(page(`<h1>Checkout closed</h1><p class="note">This checkout is ${escapeHtml(payment.status)}.</p>${cancel}`, payment.id));
      }
      return reply.send(page(checkoutBody(payment), payment.id));
    },
  );
}
