/**
 * The sandbox overlay's two scripts, served as files (the server's CSP allows no inline
 * script): `checkout.js` defines `window.SandboxCheckout` with Paddle.js's calling convention
 * and lays the overlay iframe over the page; `checkout-page.js` runs in that iframe and tells
 * the parent what happened by `postMessage` (type `sandbox-checkout`).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';

/** The message type between the overlay page and checkout.js. */
export const SANDBOX_MESSAGE_TYPE = 'sandbox-checkout';

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

export function registerSandboxScripts(app: FastifyInstance): void {
  const tags = ['payments'];
  const script = (source: string) => (_request: unknown, reply: FastifyReply) =>
    reply.type('application/javascript; charset=utf-8').header('cache-control', 'no-cache').send(source);
  app.get('/sandbox/checkout.js', { schema: { operationId: 'sandboxCheckoutScript', tags, summary: 'The sandbox overlay script (window.SandboxCheckout)' } }, script(CHECKOUT_JS));
  app.get('/sandbox/checkout-page.js', { schema: { operationId: 'sandboxCheckoutPageScript', tags, summary: "The sandbox overlay page's script" } }, script(PAGE_JS));
}
