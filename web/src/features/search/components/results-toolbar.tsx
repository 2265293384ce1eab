import { useState } from 'react';
import { CopyIcon, DownloadIcon, PrinterIcon } from '@/components/icons';
import { toast } from '@/lib/toast-store';
import type { SearchRecord } from '../api/search-api';
import { printRecords } from '../lib/print';
import { recordsText } from '../lib/record-fields';
import { ExportModal } from './export-modal';

export type Scope = 'page' | 'all';

export async function copyRecords(records: SearchRecord[]): Promise<void> {
  try {
    await navigator.clipboard.writeText(recordsText(records));
    toast.success('Copied Data');
  } catch {
    toast.error('Could not copy to the clipboard');
  }
}

interface ResultsToolbarProps {
  pageRecords: SearchRecord[];
  /** Every page of this search loaded so far (see README: "All" does not spend searches). */
  allRecords: SearchRecord[];
  loadedPages: number;
  selected: SearchRecord[];
  allSelected: boolean;
  onSelectAll: (selected: boolean) => void;
}

/** Select all, Copy Selected, and Copy / Print / Export of the current page or all loaded pages. */
export function ResultsToolbar({ pageRecords, allRecords, loadedPages, selected, allSelected, onSelectAll }: ResultsToolbarProps) {
  const [scope, setScope] = useState<Scope>('page');
  const [exporting, setExporting] = useState(false);
  const records = scope === 'page' ? pageRecords : allRecords;
  const scopeLabel = scope === 'page' ? 'the current page' : `${loadedPages} loaded page${loadedPages === 1 ? '' : 's'}`;

  return (
    <div className="results-toolbar" data-testid="results-toolbar">
      <div className="results-toolbar-group">
        <label className="select-all">
          <input
            type="checkbox"
            className="checkbox-input"
            checked={allSelected}
            onChange={(event) => onSelectAll(event.currentTarget.checked)}
            aria-label="Select all on this page"
          />
          <span>Select page</span>
        </label>
        <button
          type="button"
          className="button button-secondary button-small"
          disabled={selected.length === 0}
          onClick={() => void copyRecords(selected)}
        >
          <CopyIcon width={15} height={15} />
          Copy Selected{selected.length > 0 ? ` (${selected.length})` : ''}
        </button>
      </div>
      <div className="results-toolbar-group">
        <div className="segmented" role="radiogroup" aria-label="Copy, print and export scope">
          {(
            [
              ['page', 'Current page'],
              ['all', 'All'],
            ] as const
          ).map(([value, label]) => (
            <button
              key={value}
              type="button"
              role="radio"
              aria-checked={scope === value}
              className={`segmented-option${scope === value ? ' active' : ''}`}
              title={value === 'all' ? `Every page loaded for this search (${loadedPages})` : undefined}
              onClick={() => setScope(value)}
            >
              {label}
            </button>
          ))}
        </div>
        <button type="button" className="button button-secondary button-small" onClick={() => void copyRecords(records)}>
          <CopyIcon width={15} height={15} />
          Copy
        </button>
        <button type="button" className="button button-secondary button-small" onClick={() => printRecords(records, 'Search results')}>
          <PrinterIcon width={15} height={15} />
          Print
        </button>
        <button type="button" className="button button-secondary button-small" onClick={() => setExporting(true)}>
          <DownloadIcon width={15} height={15} />
          Export CSV
        </button>
      </div>
      {exporting && <ExportModal records={records} scopeLabel={scopeLabel} onClose={() => setExporting(false)} />}
    </div>
  );
}
