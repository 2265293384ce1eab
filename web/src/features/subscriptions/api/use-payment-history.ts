import useSWR, { mutate as mutateGlobal } from 'swr';
import { ApiError } from '@/lib/api';
import { useSession } from '@/lib/session';
import { toast } from '@/lib/toast-store';
import { clearPaymentHistory, getPaymentHistory, type PaymentHistoryPage } from './subscriptions-api';

const HISTORY_KEY = '/user/payment-history';

const isHistoryKey = (key: unknown) => Array.isArray(key) && key[0] === HISTORY_KEY;

/** One page of POST /user/payment-history, and clearing the whole history. */
export function usePaymentHistory(page: number) {
  const { token } = useSession();
  const result = useSWR<PaymentHistoryPage>(token ? [HISTORY_KEY, page] : null, () => getPaymentHistory(page), {
    keepPreviousData: true,
    onError: (cause) => {
      if (cause instanceof ApiError) {
        if (cause.status !== 401) toast.error('Issue loading payment history');
      } else toast.error('Could not get subscriptions info', 2000);
    },
  });

  /** True once the server has cleared it; every cached page is then empty. */
  const clear = async (): Promise<boolean> => {
    try {
      await clearPaymentHistory();
    } catch (cause) {
      if (cause instanceof ApiError) toast.error('could not clear payment history');
      else toast.error('Could not get subscriptions info', 2000);
      return false;
    }
    const empty: PaymentHistoryPage = { invoices: [], total_results: 0, extra_data: false };
    await mutateGlobal(isHistoryKey, empty, { revalidate: false });
    return true;
  };

  return { ...result, clear };
}
