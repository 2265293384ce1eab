/**
 * A BTCPay invoice: created in USD for the store with the store's enabled on-chain payment
 * methods; its payment methods give each coin's destination, payment link, rate and amount due.
 */
import { centsToUsd } from '../../common/catalogue';
import { coinOf, type BtcpayApi, type BtcpayPaymentMethod } from './btcpay-api';
import { CryptoProviderError, paymentUri, type CreatedInvoice, type PaymentOption } from './crypto-provider';

export async function createBtcpayInvoice(
  api: Pick<BtcpayApi, 'createInvoice' | 'paymentMethods'>,
  { paymentId, usdCents, expiresAt }: { paymentId: string; usdCents: number; expiresAt: Date },
): Promise<CreatedInvoice> {
  const invoice = await api.createInvoice({
    amount: centsToUsd(usdCents).toFixed(2),
    currency: 'USD',
    metadata: { orderId: paymentId },
    // The store's enabled payment methods (BTC, LTC, XMR on chain) are offered.
    checkout: { expirationMinutes: Math.max(1, Math.round((expiresAt.getTime() - Date.now()) / 60_000)) },
  });
  const options = (await api.paymentMethods(invoice.id)).flatMap(paymentOption);
  if (options.length === 0) throw new CryptoProviderError('BTCPay offered no on-chain payment method for btc, ltc or xmr');
  return { providerRef: invoice.id, options };
}

/** The way to pay one payment method offers; none for Lightning, other coins, or no destination. */
function paymentOption(method: BtcpayPaymentMethod): PaymentOption[] {
  const currency = coinOf(method);
  if (!currency || !method.destination) return [];
  const currencyAmount = method.due ?? method.amount ?? '0';
  return [
    {
      currency,
      paymentAddress: method.destination,
      paymentFullString: method.paymentLink || paymentUri(currency, method.destination, currencyAmount),
      currencyAmount,
      usdRate: Number(method.rate ?? 0),
    },
  ];
}
