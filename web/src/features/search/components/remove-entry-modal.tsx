import { useState } from 'react';
import { Modal } from '@/components/modal';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { toast } from '@/lib/toast-store';
import { requestEntryRemoval, type SearchRecord } from '../api/search-api';
import { removableEmails } from '../lib/record-fields';

export const REMOVAL_REQUEST_FAILED = 'Issue submitting entry for removal, please try again later.';

interface RemoveEntryModalProps {
  record: SearchRecord;
  onClose: () => void;
  onRequested: (id: string) => void;
}

/**
 * Pick one of the entry's emails; a
 * confirmation link goes to that address, and the row shows Removed.
 */
export function RemoveEntryModal({ record, onClose, onRequested }: RemoveEntryModalProps) {
  const emails = removableEmails(record);
  const [email, setEmail] = useState(emails.length === 1 ? emails[0]! : '');
  const [busy, run] = useGuardedSubmit();

  const submit = () =>
    run(async () => {
      if (!email) return;
      try {
        await requestEntryRemoval(record.id, email, record.database_name ?? '');
        toast.success(`A confirmation link was sent to ${email}.`);
        onRequested(record.id);
        onClose();
      } catch {
        toast.error(REMOVAL_REQUEST_FAILED);
      }
    });

  return (
    <Modal
      title="Remove Entry"
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button button-secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="button button-danger" disabled={!email || busy} onClick={() => void submit()}>
            {busy ? 'Submitting…' : 'Submit'}
          </button>
        </>
      }
    >
      <p className="muted">
        Choose the email address this entry belongs to. We send a confirmation link there; once it is opened, the entry no
        longer appears in search results.
      </p>
      <fieldset className="choice-list">
        <legend className="field-label">Email</legend>
        {emails.map((candidate) => (
          <label key={candidate} className={`choice${candidate === email ? ' active' : ''}`}>
            <input type="radio" name="removal-email" value={candidate} checked={candidate === email} onChange={() => setEmail(candidate)} />
            <span className="choice-text">{candidate}</span>
          </label>
        ))}
      </fieldset>
    </Modal>
  );
}
