import useSWR from 'swr';
import { ApiError } from '@/lib/api';
import { useSession } from '@/lib/session';
import { toast } from '@/lib/toast-store';
import { updateNotificationSetting, type NotificationSetting } from './account-api';

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

/** A profile field that holds the current value of a setting. */
export type ProfileSettingField = Exclude<keyof Profile, 'email' | 'enterprise'>;

/** Saves one setting: switched at once on screen, switched back (and rejected) if the save fails. */
export type UpdateSetting = (setting: NotificationSetting, field: ProfileSettingField, value: boolean) => Promise<void>;

const PROFILE_KEY = '/user/profile';

export function useProfile() {
  const { token } = useSession();
  const { data: profile, error, isLoading, mutate } = useSWR<Profile>(token ? PROFILE_KEY : null, {
    // A 401 here means the session has ended: the guard shows the login instead.
    onError: (error) => {
      if (!(error instanceof ApiError && error.status === 401)) toast.error('Issue loading profile');
    },
  });

  const updateSetting: UpdateSetting = async (setting, field, value) => {
    if (!profile) return;
    const next = { ...profile, [field]: value };
    await mutate(
      async () => {
        const { success } = await updateNotificationSetting(setting, value);
        if (!success) throw new Error('setting not saved');
        return next;
      },
      { optimisticData: next, rollbackOnError: true, revalidate: false },
    );
  };

  /** Loads the profile again (after a failed load). */
  const reload = () => mutate();

  return { profile, failed: !profile && Boolean(error) && !isLoading, isLoading, reload, updateSetting };
}
