/**
 * A NOWPayments invoice: one NOWPayments payment per coin (`POST /v1/payment`), all carrying
 * our payment id as `order_id`, so the buyer pays whichever they like and the first that
 * finishes pays the invoice. (Their invoice API answers a hosted page, not addresses.)
 */
import { centsToUsd } from '../../common/catalogue';
import { CryptoProviderError, isCryptoCurrency, paymentUri, CRYPTO_CURRENCIES, type CreatedInvoice, type PaymentOption } from './crypto-provider';
import { NOWPAYMENTS, type NowpaymentsCall } from './nowpayments-api';

/** `POST /v1/payment`'s answer (the fields we read). */
interface NowPayment {
  payment_id: string | number;
  payment_status: string;
  pay_address: string;
  pay_amount: number | string;
  pay_currency: string;
  price_amount: number | string;
}

export async function createNowpaymentsInvoice(
  deps: { call: NowpaymentsCall; publicUrl: string },
  { paymentId, usdCents }: { paymentId: string; usdCents: number },
): Promise<CreatedInvoice> {
  const usd = centsToUsd(usdCents);
  const created = await Promise.allSettled(
    CRYPTO_CURRENCIES.map((currency) =>
      deps.call<NowPayment>('POST', '/v1/payment', {
        price_amount: usd,
        price_currency: 'usd',
        pay_currency: currency,
        order_id: paymentId,
        order_description: `Payment ${paymentId}`,
        ipn_callback_url: `${deps.publicUrl}/webhooks/${NOWPAYMENTS}`,
      }),
    ),
  );
  // A coin NOWPayments refuses (an amount under its minimum) is left out; none at all is an error.
  const payments = created.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const options = payments.flatMap((payment) => paymentOption(payment, usd));
  if (options.length === 0) {
    const reason = created.find((result) => result.status === 'rejected') as PromiseRejectedResult | undefined;
    throw reason?.reason instanceof Error ? reason.reason : new CryptoProviderError('NOWPayments created no payment');
  }
  const ids = payments.map((payment) => String(payment.payment_id));
  return { providerRef: ids[0]!, options, details: { nowpayments_payment_ids: ids } };
}

/** The way to pay one NOWPayments payment offers; none for a coin we do not offer or no address. */
function paymentOption(payment: NowPayment, usd: number): PaymentOption[] {
  const currency = payment.pay_currency.toLowerCase();
  if (!isCryptoCurrency(currency) || !payment.pay_address) return [];
  const currencyAmount = String(payment.pay_amount);
  return [
    {
      currency,
      paymentAddress: payment.pay_address,
      paymentFullString: paymentUri(currency, payment.pay_address, currencyAmount),
      currencyAmount,
      usdRate: Math.round((usd / Number(payment.pay_amount)) * 100) / 100,
    },
  ];
}
