/**
 * Paddle Billing: Paddle.js overlay on the page, `Paddle-Signature` webhooks to
 * `/webhooks/paddle`, cancel through the API at the next billing period. The API's base URL
 * is a setting (PADDLE_API_URL) so tests point it at a loopback stub. The API key only ever
 * travels in the Authorization header of our calls to Paddle: never logged, never in errors.
 */
import type { Config } from '../../config';
import type { CardProvider } from './card-contract';
import { paddleApplier, parsePaddleEvent, verifyPaddleSignature } from './paddle-format';

export const PADDLE_SCRIPT_URL = 'https://cdn.paddle.com/paddle/v2/paddle.js';
const API_TIMEOUT_MS = 10_000;
/** How long a health answer is reused (the dashboard asks before every checkout). */
const HEALTH_TTL_MS = { up: 60_000, down: 10_000 };

export function createPaddleProvider(config: Config): CardProvider & { name: 'paddle' } {
  const settings = config.card.paddle;
  if (!settings) throw new Error('CARD_PROVIDER=paddle without its settings');
  const skuByPriceId = new Map(Object.entries(settings.priceIds).map(([sku, priceId]) => [priceId, sku]));

  const api = (path: string, init: { method: string; body?: unknown }) =>
    fetch(`${settings.apiUrl}${path}`, {
      method: init.method,
      headers: {
        authorization: `Bearer ${settings.apiKey}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      signal: AbortSignal.timeout(API_TIMEOUT_MS),
    });

  let healthCache: { ok: boolean; until: number } | undefined;

  return {
    name: 'paddle',
    clientConfig: () => ({
      provider: 'paddle',
      script_url: PADDLE_SCRIPT_URL,
      global_name: 'Paddle',
      token: settings.clientToken,
      environment: settings.environment,
      price_ids: { ...settings.priceIds },
    }),
    webhook: {
      name: 'paddle',
      verify(rawBody, headers, now) {
        verifyPaddleSignature(rawBody, headers, settings.webhookSecrets, now, settings.toleranceSeconds);
        return [parsePaddleEvent(rawBody)];
      },
      apply: paddleApplier({ provider: 'paddle', skuForPriceId: (priceId) => skuByPriceId.get(priceId) }),
    },
    async cancel(providerSubscriptionId) {
      const response = await api(`/subscriptions/${encodeURIComponent(providerSubscriptionId)}/cancel`, {
        method: 'POST',
        body: { effective_from: 'next_billing_period' },
      });
      // The body may say why; it never holds our key, but keep errors short and generic.
      await response.body?.cancel().catch(() => {});
      if (!response.ok) throw new Error(`Paddle refused the cancel (HTTP ${response.status})`);
    },
    async health() {
      if (healthCache && healthCache.until > Date.now()) return healthCache.ok;
      let ok: boolean;
      try {
        const response = await api('/event-types', { method: 'GET' });
        await response.body?.cancel().catch(() => {});
        ok = response.ok;
      } catch {
        ok = false;
      }
      healthCache = { ok, until: Date.now() + (ok ? HEALTH_TTL_MS.up : HEALTH_TTL_MS.down) };
      return ok;
    },
  };
}
