import useSWR from 'swr';
import { ApiError } from '@/lib/api';
import { useSession } from '@/lib/session';
import { toast } from '@/lib/toast-store';
import { cancelSubscription, getSubscriptions, setMonitoredDomain, type CancelType, type SubscriptionsInfo } from './subscriptions-api';

const SUBSCRIPTIONS_KEY = '/subscriptions';

/** GET /subscriptions, with the page's changes: cancelling a plan, setting a domain. */
export function useSubscriptions() {
  const { token } = useSession();
  const { data, error, isLoading, mutate } = useSWR<SubscriptionsInfo>(token ? SUBSCRIPTIONS_KEY : null, getSubscriptions, {
    onError: (cause) => {
      if (!(cause instanceof ApiError && cause.status === 401)) toast.error('Could not get subscriptions info');
    },
  });

  /** True when the server accepted the request; the toast is shown here on failure. */
  const cancel = async (type: CancelType, id: string = ''): Promise<boolean> => {
    try {
      const { success } = await cancelSubscription(type, id);
      if (!success) throw new Error('not cancelled');
      void mutate();
      return true;
    } catch {
      toast.error('Issue cancelling subscription');
      return false;
    }
  };

  const updateDomain = async (id: string, domain: string): Promise<boolean> => {
    try {
      await setMonitoredDomain(id, domain);
      toast.success('successfully updated domain value');
      await mutate(
        (current) => current && { ...current, domains: current.domains.map((row) => (row.id === id ? { ...row, domain } : row)) },
        { revalidate: true },
      );
      return true;
    } catch {
      toast.error('could not update domain');
      return false;
    }
  };

  return { info: data, error, isLoading, cancel, updateDomain, retry: mutate };
}
