/** The crypto provider `CRYPTO_PROVIDER` names (see crypto-provider.ts). */
import type { Kysely } from 'kysely';
import type { Config } from '../../config';
import type { Database } from '../../db/schema';
import type { CryptoProvider } from './crypto-provider';
import { createBtcpayProvider } from './btcpay';
import { createNowpaymentsProvider } from './nowpayments';
import { createSandboxCryptoProvider } from './sandbox';
import type { Publish } from './settlement';

export async function createCryptoProvider(deps: { config: Config; db: Kysely<Database>; publish: Publish; fetch?: typeof fetch }): Promise<CryptoProvider> {
  switch (deps.config.CRYPTO_PROVIDER) {
    case 'btcpay':
      return createBtcpayProvider(deps);
    case 'nowpayments':
      return createNowpaymentsProvider(deps);
    case 'sandbox':
      return createSandboxCryptoProvider(deps);
  }
}

export type { CryptoProvider, PaymentOption } from './crypto-provider';
