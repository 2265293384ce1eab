/**
 * The operator commands of payments (`npm run admin -- payment:… | product:set`): prices,
 * and the sandbox providers' events (a crypto payment, a card renewal or refund) sent
 * through the webhook ingress as a real provider's would be.
 */
import type { CommandTable } from '../infra/operator-commands';

const sandbox = () => import('./sandbox-payments-cli');
const namespace = { type: 'string' } as const;

export const PAYMENTS_COMMANDS: CommandTable = {
  commands: [
    {
      name: 'payment:simulate',
      args: '--invoice ID [--status settled|partial|overpaid|expired] [--currency btc|ltc|xmr|bch|eth] [--namespace NS]',
      description:
        'With CRYPTO_PROVIDER=sandbox: what the blockchain would report for crypto invoice ID (default settled, paid in btc). ' +
        "The event goes through the webhook ingress; the server's workers apply it (now, or when the server next starts). " +
        "--namespace NS: the server's queue namespace (default leakwell; tests).",
      options: { invoice: { type: 'string' }, status: { type: 'string' }, currency: { type: 'string' }, namespace },
      run: async (context, values) => (await sandbox()).simulateCryptoCommand(context, values),
    },
    {
      name: 'product:set',
      args: '--sku SKU --price USD',
      description:
        "Sets a product's price per unit in USD (e.g. 15.49; credits 0.05): the next checkouts are priced with it (a Paddle " +
        'price must be changed in Paddle too).',
      options: { sku: { type: 'string' }, price: { type: 'string' } },
      run: async (context, values) => (await import('./product-price-cli')).setPriceCommand(context, values),
    },
    {
      name: 'payment:renew',
      args: '--subscription ID [--namespace NS]',
      description:
        'With CARD_PROVIDER=sandbox: the provider charges a renewal of sandbox subscription ID (payments.provider_subscription_id, ' +
        'sandbox-sub-…): a signed transaction.completed (origin subscription_recurring) goes through the webhook ingress.',
      options: { subscription: { type: 'string' }, namespace },
      run: async (context, values) => (await sandbox()).sandboxCardCommand('payment:renew', context, values),
    },
    {
      name: 'payment:refund',
      args: '--payment ID [--namespace NS]',
      description:
        'With CARD_PROVIDER=sandbox: an approved full refund (adjustment.created) of paid sandbox payment ID; credits are taken ' +
        'back (never below zero), access ends.',
      options: { payment: { type: 'string' }, namespace },
      run: async (context, values) => (await sandbox()).sandboxCardCommand('payment:refund', context, values),
    },
  ],
};
