/**
 * The card provider's overlay script (Paddle Billing's calling convention; the sandbox
 * provider serves the same object): load `script_url` once, take `window[global_name]`.
 */
import type { CardConfig } from '../api/checkout-api';

export interface CardEvent {
  name?: string;
}

export interface CardProvider {
  Environment?: { set(environment: string): void };
  Initialize(options: { token: string; eventCallback: (event: CardEvent) => void }): void;
  Checkout: {
    open(options: {
      items: { priceId: string; quantity: number }[];
      customer: { email: string };
      customData: { checkout_id: string };
    }): void;
  };
}

const loading = new Map<string, Promise<void>>();

function loadScript(url: string): Promise<void> {
  let promise = loading.get(url);
  if (!promise) {
    promise = new Promise<void>((resolve, reject) => {
      const script = document.createElement('script');
      script.src = url;
      script.async = true;
      script.onload = () => resolve();
      script.onerror = () => {
        loading.delete(url);
        script.remove();
        reject(new Error(`could not load ${url}`));
      };
      document.head.append(script);
    });
    loading.set(url, promise);
  }
  return promise;
}

function isProvider(value: unknown): value is CardProvider {
  const candidate = value as Partial<CardProvider> | undefined;
  return typeof candidate?.Initialize === 'function' && typeof candidate.Checkout?.open === 'function';
}

/** Loads the script and initialises the provider with the page's event callback. */
export async function loadCardProvider(config: CardConfig, eventCallback: (event: CardEvent) => void): Promise<CardProvider> {
  await loadScript(config.script_url);
  const provider = (window as unknown as Record<string, unknown>)[config.global_name];
  if (!isProvider(provider)) throw new Error('card provider not found');
  if (config.environment && provider.Environment) provider.Environment.set(config.environment);
  provider.Initialize({ token: config.token, eventCallback });
  return provider;
}
