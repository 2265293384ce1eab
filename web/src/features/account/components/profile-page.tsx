import { useState } from 'react';
import { LoadFailed } from '@/components/load-failed';
import { usePageTitle } from '@/hooks/use-page-title';
import { useProfile } from '../api/use-profile';
import { CloseAccountModal } from './close-account-modal';
import { PasswordRow } from './password-row';
import { SessionsSection } from './sessions-section';
import { SettingsSection } from './settings-section';
import { TwoFactorSection } from './two-factor-section';

export function ProfilePage() {
  usePageTitle('Profile');
  const { profile, failed, isLoading, reload, updateSetting } = useProfile();
  const [closing, setClosing] = useState(false);

  return (
    <div className="page page-narrow">
      <header className="page-header">
        <h1>Profile Settings</h1>
        <p className="page-lead">Your sign-in details, what we email you about, and what we keep.</p>
      </header>

      <section className="card">
        <h2 className="card-title">Account</h2>
        <div className="setting-row">
          <div className="setting-text">
            <span className="setting-label">Email</span>
            <span className="setting-value" data-testid="profile-email">
              {profile?.email ?? (isLoading ? 'Loading…' : '—')}
            </span>
          </div>
          <span className="setting-hint">Contact support to change it.</span>
        </div>
        <PasswordRow />
      </section>

      <TwoFactorSection />

      {/* A failed load is said where the settings would be, never left out: a missing card reads as a missing setting. */}
      {failed ? (
        <LoadFailed title="Could not load your settings" retry={reload} />
      ) : (
        profile && (
          <>
            <SettingsSection profile={profile} updateSetting={updateSetting} group="notifications" />
            <SettingsSection profile={profile} updateSetting={updateSetting} group="payments" />
          </>
        )
      )}

      <SessionsSection />

      <section className="card card-danger">
        <h2 className="card-title">Close Account</h2>
        <div className="setting-row">
          <p className="setting-text muted">
            Closing your account signs you out everywhere and disables your API key. We will email you a link to
            confirm.
          </p>
          <button type="button" className="button button-danger" onClick={() => setClosing(true)}>
            Close Account
          </button>
        </div>
      </section>

      {closing && <CloseAccountModal onClose={() => setClosing(false)} />}
    </div>
  );
}
