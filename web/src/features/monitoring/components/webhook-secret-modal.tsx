import { useState } from 'react';
import { AlertIcon, CopyIcon } from '@/components/icons';
import { Modal } from '@/components/modal';
import { toast } from '@/lib/toast-store';

/**
 * A new webhook's signing secret, shown this once (the server keeps only a hint of it):
 * the receiver verifies the Standard Webhooks signature with it.
 */
export function WebhookSecretModal({ secret, onClose }: { secret: string; onClose: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
      toast.success('Copied Signing Secret');
    } catch {
      toast.error('Could not copy, select the secret and copy it by hand');
    }
  };
  return (
    <Modal
      title="Webhook Signing Secret"
      onClose={onClose}
      actions={
        <button type="button" className="button button-primary" onClick={onClose}>
          Done
        </button>
      }
    >
      <p>Every request to your webhook is signed with this secret (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature).</p>
      <div className="secret-box">
        <code data-testid="webhook-secret">{secret}</code>
        <button type="button" className="icon-button" aria-label="Copy signing secret" onClick={() => void copy()}>
          <CopyIcon width={16} height={16} />
        </button>
      </div>
      <p className="secret-warning" role="note">
        <AlertIcon width={16} height={16} />
        {copied ? 'Copied. ' : ''}Store it now: it will not be shown again.
      </p>
    </Modal>
  );
}
