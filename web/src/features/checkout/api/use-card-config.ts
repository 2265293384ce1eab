import useSWR from 'swr';
import { useSession } from '@/lib/session';
import { getCardConfig } from './checkout-api';

const CARD_CONFIG_KEY = '/payments/card-config';

/** GET /payments/card-config, asked for only once `wanted` (the 400 ms script delay has passed). */
export function useCardConfig(wanted: boolean) {
  const { token } = useSession();
  return useSWR(token && wanted ? CARD_CONFIG_KEY : null, getCardConfig);
}
