import { useState, type FormEvent } from 'react';
import { Modal } from '@/components/modal';
import { toast } from '@/lib/toast-store';
import type { SearchRecord } from '../api/search-api';
import { CSV_NAME_ERROR, defaultCsvName, downloadCsv, isCsvName } from '../lib/csv';

/** Asks for the file name (timestamped by default) and downloads the CSV. */
export function ExportModal({ records, scopeLabel, onClose }: { records: SearchRecord[]; scopeLabel: string; onClose: () => void }) {
  const [name, setName] = useState(defaultCsvName);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!isCsvName(name)) {
      toast.error(CSV_NAME_ERROR);
      return;
    }
    downloadCsv(records, name);
    toast.success('Downloaded CSV');
    onClose();
  };

  return (
    <Modal title="Export CSV" onClose={onClose}>
      <form className="export-form" onSubmit={submit}>
        <p className="muted">
          {records.length.toLocaleString('en-US')} record{records.length === 1 ? '' : 's'} from {scopeLabel}. List fields get one
          numbered column per value.
        </p>
        <label className="field">
          <span className="field-label">File name</span>
          <input
            className="input"
            name="csv-file-name"
            value={name}
            spellCheck={false}
            autoFocus
            onChange={(event) => setName(event.currentTarget.value)}
          />
        </label>
        <div className="modal-actions export-actions">
          <button type="button" className="button button-secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary">
            Download
          </button>
        </div>
      </form>
    </Modal>
  );
}
