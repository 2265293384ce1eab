import useSWR from 'swr';
import { ApiError } from '@/lib/api';
import { useSession } from '@/lib/session';
import { toast } from '@/lib/toast-store';

/** GET /user/profile: the e-mail and notification settings of the signed-in user. */
export interface Profile {
  email: string;
  enterprise: boolean;
  enterprise_monitoring_expiration_notification: boolean;
  low_api_credits_notification: boolean;
  low_whois_credits_notification: boolean;
  monitoring_expiration_notification: boolean;
  search_expiration_notification: boolean;
  store_invoices: boolean;
  store_extra_invoice_data: boolean;
}

export function useProfile() {
  const { token } = useSession();
  return useSWR<Profile>(token ? '/user/profile' : null, {
    // A 401 here means the session has ended: the guard shows the login instead.
    onError: (error) => {
      if (!(error instanceof ApiError && error.status === 401)) toast.error('Issue loading profile');
    },
  });
}
