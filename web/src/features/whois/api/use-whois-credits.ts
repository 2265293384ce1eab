import useSWR, { mutate } from 'swr';
import { ApiError } from '@/lib/api';
import { useSession } from '@/lib/session';
import { toast } from '@/lib/toast-store';
import { getWhoisCredits, WHOIS_CREDITS_PATH } from './whois-api';

/** A failed credit load. */
export const CREDITS_LOAD_FAILED = 'could not load credits count';

/** The WHOIS credit balance (GET /user/whois-credits), loaded once a token exists. */
export function useWhoisCredits() {
  const { token } = useSession();
  return useSWR<number>(token ? WHOIS_CREDITS_PATH : null, async () => (await getWhoisCredits()).whois_credits, {
    onError: (cause) => {
      if (!(cause instanceof ApiError && cause.status === 401)) toast.error(CREDITS_LOAD_FAILED);
    },
  });
}

/** Sets the balance from an answer's remaining_credits, without a second call. */
export function setWhoisCredits(credits: number): Promise<unknown> {
  return mutate(WHOIS_CREDITS_PATH, credits, { revalidate: false });
}
