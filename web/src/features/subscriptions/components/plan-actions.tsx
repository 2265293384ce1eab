import { useState } from 'react';
import { Link } from 'wouter';
import { Modal } from '@/components/modal';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import type { CancelType } from '../api/subscriptions-api';

export type Cancel = (type: CancelType, id?: string) => Promise<boolean>;

export function formatExpiry(iso: string | null): string {
  if (!iso) return 'N/A';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? 'N/A' : date.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' });
}

/**
 * Cancel only while recurring (confirmed in a modal); Purchase only while not recurring. Once
 * a cancel was asked (`requested`, from the server, or just now), the button stays disabled and
 * says so until the provider confirms and the plan stops renewing.
 */
export function PlanActions({
  planName,
  recurring,
  requested = false,
  cancelType,
  id,
  cancel,
  purchaseHref,
}: {
  planName: string;
  recurring: boolean;
  requested?: boolean;
  cancelType: CancelType;
  /** A domain subscription's id. */
  id?: string;
  cancel: Cancel;
  purchaseHref: string | null;
}) {
  const [confirming, setConfirming] = useState(false);
  const [submitted, setSubmitted] = useState(false);
  const [busy, run] = useGuardedSubmit();
  const pending = requested || submitted;

  const confirm = () =>
    run(async () => {
      const ok = await cancel(cancelType, id);
      setConfirming(false);
      if (ok) setSubmitted(true);
    });

  return (
    <>
      {pending && recurring && (
        <p className="subs-submitted" role="status">
          Submitted Cancellation Request <span className="muted">(the change may take a few minutes)</span>
        </p>
      )}
      <button
        type="button"
        className="button button-ghost button-small"
        disabled={!recurring || pending}
        onClick={() => setConfirming(true)}
      >
        Cancel {planName}
      </button>
      {!recurring && purchaseHref && (
        <Link href={purchaseHref} className="button button-primary button-small">
          Purchase
        </Link>
      )}
      {confirming && (
        <Modal
          title={`Cancel ${planName} subscription?`}
          onClose={() => setConfirming(false)}
          actions={
            <>
              <button type="button" className="button button-secondary" onClick={() => setConfirming(false)}>
                Keep it
              </button>
              <button type="button" className="button button-danger" disabled={busy} onClick={() => void confirm()}>
                Confirm Cancellation
              </button>
            </>
          }
        >
          <p>Auto-renew stops: your plan stays active until the end of the current period.</p>
        </Modal>
      )}
    </>
  );
}
