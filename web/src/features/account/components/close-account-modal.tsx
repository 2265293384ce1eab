import { useEffect, useState } from 'react';
import { Modal } from '@/components/modal';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { ApiError } from '@/lib/api';
import { toast } from '@/lib/toast-store';
import { requestAccountClosure } from '../api/account-api';

/** Seconds the confirm button stays disabled. */
const COUNTDOWN_SECONDS = 3;

export function CloseAccountModal({ onClose }: { onClose: () => void }) {
  const [secondsLeft, setSecondsLeft] = useState(COUNTDOWN_SECONDS);
  const [busy, run] = useGuardedSubmit();

  useEffect(() => {
    if (secondsLeft <= 0) return;
    const timer = setTimeout(() => setSecondsLeft((seconds) => seconds - 1), 1000);
    return () => clearTimeout(timer);
  }, [secondsLeft]);

  const confirm = () =>
    run(async () => {
      try {
        await requestAccountClosure();
        toast.success('Check your email for the link that closes your account.', 6000);
      } catch (error) {
        // A network failure counts as sent; a refusal from the server does not.
        if (error instanceof ApiError) toast.error('Issue requesting account closure');
        else toast.success('Check your email for the link that closes your account.', 6000);
      }
      onClose();
    });

  const waiting = secondsLeft > 0;
  return (
    <Modal
      title="Close Account"
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button button-ghost" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="button button-danger"
            data-testid="confirm-close-account"
            disabled={waiting || busy}
            onClick={confirm}
          >
            {waiting ? `Wait ${secondsLeft}s` : 'Close Account'}
          </button>
        </>
      }
    >
      <p>Are you sure? Closing your account cannot be undone.</p>
      <p className="muted">
        We will email you a confirmation link. Your account is closed only once you open it while signed in.
      </p>
    </Modal>
  );
}
