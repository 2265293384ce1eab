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
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { centsToUsd, productName } from '../common/catalogue';
import type { SandboxCardProvider } from './card/sandbox-provider';
import { ErrorBody } from '../infra/errors';
import { findPayment } from './payments-repository';

/** The message type between the overlay page and checkout.js. */
export const SANDBOX_MESSAGE_TYPE = 'sandbox-checkout';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

const CHECKOUT_JS = `/* Sandbox card checkout: Paddle.js's calling convention, served by this server. */
(function () {
  'use strict';
  var script = document.currentScript;
  var origin = script && script.src ? new URL(script.src, location.href).origin : location.origin;
  var callback = function () {};
  var current = null;
  function emit(event) {
    try { callback(event); } catch (error) { setTimeout(function () { throw error; }); }
  }
  function remove() {
    if (!current) return;
    window.removeEventListener('message', current.listener);
    current.overlay.remove();
    current = null;
  }
  window.SandboxCheckout = {
    Environment: { set: function () {} },
    Initialize: function (options) {
      callback = (options && typeof options.eventCallback === 'function') ? options.eventCallback : function () {};
    },
    Checkout: {
      open: function (options) {
        var checkoutId = options && options.customData && options.customData.checkout_id;
        if (typeof checkoutId !== 'string' || !checkoutId) {
          emit({ name: 'checkout.error', data: { error: 'customData.checkout_id is required' } });
          return;
        }
        remove();
        var overlay = document.createElement('div');
        overlay.setAttribute('data-sandbox-checkout', checkoutId);
        overlay.style.cssText = 'position:fixed;inset:0;z-index:2147483647;display:flex;align-items:center;justify-content:center;background:rgba(15,23,42,0.55)';
        var frame = document.createElement('iframe');
        frame.title = 'Sandbox checkout';
        frame.src = origin + '/sandbox/checkout?checkout_id=' + encodeURIComponent(checkoutId);
        frame.style.cssText = 'width:min(420px,94vw);height:min(440px,90vh);border:0;border-radius:12px;background:#fff;box-shadow:0 20px 50px rgba(0,0,0,0.35)';
        overlay.appendChild(frame);
        var data = { custom_data: { checkout_id: checkoutId } };
        var listener = function (event) {
          if (event.origin !== origin || event.source !== frame.contentWindow) return;
          var message = event.data;
          if (!message || message.type !== '${SANDBOX_MESSAGE_TYPE}' || message.checkout_id !== checkoutId) return;
          if (message.event === 'checkout.completed') {
            emit({ name: 'checkout.completed', data: data });
            remove();
            emit({ name: 'checkout.closed', data: data });
          } else if (message.event === 'checkout.closed') {
            remove();
            emit({ name: 'checkout.closed', data: data });
          } else if (message.event === 'checkout.error') {
            emit({ name: 'checkout.error', data: data });
          }
        };
        window.addEventListener('message', listener);
        current = { overlay: overlay, listener: listener };
        document.body.appendChild(overlay);
      },
      close: function () {
        if (!current) return;
        remove();
        emit({ name: 'checkout.closed' });
      }
    }
  };
})();
`;

const PAGE_JS = `/* The sandbox checkout overlay's page. */
(function () {
  'use strict';
  var root = document.getElementById('sandbox-checkout');
  var checkoutId = root.getAttribute('data-checkout-id');
  var status = document.getElementById('status');
  var pay = document.getElementById('pay');
  var cancel = document.getElementById('cancel');
  function tell(name) {
    if (window.parent !== window) window.parent.postMessage({ type: '${SANDBOX_MESSAGE_TYPE}', event: name, checkout_id: checkoutId }, location.origin);
  }
  function sleep(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }
  // Paddle says completed once it charged; waiting a little for our webhook lets the
  // thank-you page already show what was bought (it is not needed for correctness).
  function settle(tries) {
    return fetch('/sandbox/checkouts/' + encodeURIComponent(checkoutId), { cache: 'no-store' })
      .then(function (r) { return r.ok ? r.json() : {}; })
      .then(function (body) { if (body.status === 'pending' && tries > 0) return sleep(300).then(function () { return settle(tries - 1); }); });
  }
  cancel.addEventListener('click', function () { tell('checkout.closed'); });
  if (!pay) return;
  pay.addEventListener('click', function () {
    pay.disabled = true;
    cancel.disabled = true;
    status.textContent = 'Processing payment…';
    fetch('/sandbox/checkouts/' + encodeURIComponent(checkoutId) + '/pay', { method: 'POST' })
      .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return settle(20); })
      .then(function () { status.textContent = 'Payment complete.'; tell('checkout.completed'); })
      .catch(function () {
        status.textContent = 'The payment did not go through.';
        cancel.disabled = false;
        tell('checkout.error');
      });
  });
})();
`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

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

export function registerSandboxRoutes(app: FastifyInstance, deps: { db: Kysely<Database>; sandbox: SandboxCardProvider }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['payments'];
  const framable = async (_request: unknown, reply: FastifyReply, payload: unknown) => {
    reply.header('content-security-policy', PAGE_CSP);
    reply.header('x-frame-options', 'SAMEORIGIN');
    return payload;
  };
  const script = (source: string) => (_request: unknown, reply: FastifyReply) =>
    reply.type('application/javascript; charset=utf-8').header('cache-control', 'no-cache').send(source);

  r.get('/sandbox/checkout.js', { schema: { operationId: 'sandboxCheckoutScript', tags, summary: 'The sandbox overlay script (window.SandboxCheckout)' } }, script(CHECKOUT_JS));
  r.get('/sandbox/checkout-page.js', { schema: { operationId: 'sandboxCheckoutPageScript', tags, summary: "The sandbox overlay page's script" } }, script(PAGE_JS));

  r.get(
    '/sandbox/checkout',
    {
      onSend: framable,
      schema: {
        operationId: 'sandboxCheckoutPage',
        tags,
        summary: 'The sandbox overlay page: what the checkout costs, Pay and Cancel',
        querystring: Type.Object({ checkout_id: Type.String({ maxLength: 64 }) }),
      },
    },
    async (request, reply) => {
      const id = request.query.checkout_id;
      const payment = UUID.test(id) ? await findPayment(deps.db, id) : undefined;
      const cancel = '<div class="actions"><button type="button" id="cancel">Close</button></div>';
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
      if (!payment || payment.provider !== 'sandbox' || payment.method !== 'card') {
        return reply.code(404).send(page(`<h1>Checkout not found</h1><p class="note">This checkout does not exist.</p>${cancel}`, id));
      }
      if (payment.status !== 'pending') {
        return reply.code(409).send(page(`<h1>Checkout closed</h1><p class="note">This checkout is ${escapeHtml(payment.status)}.</p>${cancel}`, payment.id));
      }
      return reply.send(
        page(
          `<h1>Sandbox checkout</h1>
<p class="note">Test mode: no card is charged.</p>
<dl>
  <dt>Product</dt><dd id="product">${escapeHtml(productName(payment.sku))}</dd>
  <dt>Quantity</dt><dd id="quantity">${payment.quantity.toLocaleString('en-US')}</dd>
  <dt>Total</dt><dd id="amount">${usd(payment.amount_cents)}</dd>
</dl>
<div class="actions"><button type="button" class="pay" id="pay">Pay ${usd(payment.amount_cents)}</button><button type="button" id="cancel">Cancel</button></div>`,
          payment.id,
        ),
      );
    },
  );

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
      const payment = UUID.test(id) ? await findPayment(deps.db, id) : undefined;
      if (!payment || payment.provider !== 'sandbox') return reply.code(404).send({ error: 'Not Found' });
      return { status: payment.status };
    },
  );
}
