import { useEffect, useState, type FormEvent } from 'react';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { ApiError } from '@/lib/api';
import { toast } from '@/lib/toast-store';
import { getInvoiceDetails, saveInvoiceDetails, type InvoiceDetails } from '../api/account-api';

const FIELDS: [keyof InvoiceDetails, string, number][] = [
  ['name', 'Name', 200],
  ['company', 'Company', 200],
  ['address', 'Address', 500],
  ['vat_id', 'VAT ID', 40],
];

const EMPTY: InvoiceDetails = { name: '', company: '', address: '', vat_id: '' };

/** The billing details printed on the next invoices (shown while "Save extra invoice details" is on). */
export function InvoiceDetailsForm() {
  const [details, setDetails] = useState<InvoiceDetails | null>(null);
  const [busy, run] = useGuardedSubmit();

  useEffect(() => {
    getInvoiceDetails().then(setDetails, () => {
      toast.error('Could not load your billing details');
      setDetails(EMPTY);
    });
  }, []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!details) return;
    void run(async () => {
      try {
        setDetails(await saveInvoiceDetails(details));
        toast.success('Billing details saved');
      } catch (error) {
        toast.error(error instanceof ApiError && error.status === 400 ? error.message : 'Could not save your billing details');
      }
    });
  };

  return (
    <form className="invoice-details" onSubmit={submit} aria-label="Billing details" data-testid="invoice-details">
      <p className="muted">Printed on your next invoices; invoices already written keep theirs.</p>
      {FIELDS.map(([key, label, max]) => (
        <label key={key} className="field">
          <span className="field-label">{label}</span>
          {key === 'address' ? (
            <textarea
              className="input"
              name={`invoice-${key}`}
              maxLength={max}
              rows={3}
              value={details?.[key] ?? ''}
              disabled={!details}
              onChange={(event) => setDetails((current) => current && { ...current, [key]: event.currentTarget.value })}
            />
          ) : (
            <input
              className="input"
              name={`invoice-${key}`}
              maxLength={max}
              value={details?.[key] ?? ''}
              disabled={!details}
              onChange={(event) => setDetails((current) => current && { ...current, [key]: event.currentTarget.value })}
            />
          )}
        </label>
      ))}
      <button type="submit" className="button button-primary" disabled={!details || busy}>
        {busy ? 'Saving…' : 'Save billing details'}
      </button>
    </form>
  );
}
