import { Toggle } from '@/components/toggle';
import { InvoiceDetailsForm } from './invoice-details-form';
import { toast } from '@/lib/toast-store';
import type { NotificationSetting } from '../api/account-api';
import type { Profile, ProfileSettingField, UpdateSetting } from '../api/use-profile';

interface SettingItem {
  setting: NotificationSetting;
  /** The profile field that holds the setting's current value. */
  field: ProfileSettingField;
  label: string;
  description: string;
  enterpriseOnly?: boolean;
}

const GROUPS: Record<'notifications' | 'payments', { title: string; items: SettingItem[] }> = {
  notifications: {
    title: 'Notifications',
    items: [
      {
        setting: 'search_expiration',
        field: 'search_expiration_notification',
        label: 'Search subscription expiring',
        description: 'Email me before my search subscription runs out.',
      },
      {
        setting: 'monitoring_expiration',
        field: 'monitoring_expiration_notification',
        label: 'Monitoring subscription expiring',
        description: 'Email me before my domain monitoring subscription runs out.',
      },
      {
        setting: 'enterprise_expiration',
        field: 'enterprise_monitoring_expiration_notification',
        label: 'Enterprise plan expiring',
        description: 'Email me before my enterprise monitoring plan runs out.',
        enterpriseOnly: true,
      },
      {
        setting: 'low_search_credits',
        field: 'low_api_credits_notification',
        label: 'Low search credits',
        description: 'Email me when my search (API) credits run low.',
      },
      {
        setting: 'low_whois_credits',
        field: 'low_whois_credits_notification',
        label: 'Low WHOIS credits',
        description: 'Email me when my WHOIS credits run low.',
      },
    ],
  },
  payments: {
    title: 'Payments',
    items: [
      {
        setting: 'store_invoices',
        field: 'store_invoices',
        label: 'Save invoices',
        description: 'Keep my invoices in the payment history.',
      },
      {
        setting: 'store_extra_invoice_data',
        field: 'store_extra_invoice_data',
        label: 'Save extra invoice details',
        description: 'Print my billing details (name, company, address, VAT ID) on my next invoices, and keep them there.',
      },
    ],
  },
};

/** A card of on/off settings, saved one at a time with an optimistic switch. */
export function SettingsSection({
  profile,
  updateSetting,
  group,
}: {
  profile: Profile;
  updateSetting: UpdateSetting;
  group: keyof typeof GROUPS;
}) {
  const { title, items } = GROUPS[group];

  const change = (item: SettingItem, value: boolean) =>
    updateSetting(item.setting, item.field, value).catch(() => toast.error('Could not update setting'));

  return (
    <section className="card">
      <h2 className="card-title">{title}</h2>
      {items
        .filter((item) => !item.enterpriseOnly || profile.enterprise)
        .map((item) => (
          <Toggle
            key={item.setting}
            label={item.label}
            description={item.description}
            checked={profile[item.field]}
            onChange={(value) => change(item, value)}
          />
        ))}
      {group === 'payments' && profile.store_extra_invoice_data && <InvoiceDetailsForm />}
    </section>
  );
}
