import { useState } from 'react';
import { CopyIcon, DownloadIcon, PrinterIcon } from '@/components/icons';
import { toast } from '@/lib/toast-store';
import type { SearchRecord } from '../api/search-api';
import { printRecords } from '../lib/print';
import { recordsText } from '../lib/record-fields';
import { ExportModal } from './export-modal';
import { LoadAllModal } from './load-all-modal';

export type Scope = 'page' | 'all';

export async function copyRecords(records: SearchRecord[]): Promise<void> {
  try {
    await navigator.clipboard.writeText(recordsText(records));
    toast.success('Copied Data');
  } catch {
    toast.error('Could not copy to the clipboard');
  }
}

type Action = 'Copy' | 'Print' | 'Export CSV';

interface ResultsToolbarProps {
  pageRecords: SearchRecord[];
  /** Every page of this search loaded so far. */
  allRecords: SearchRecord[];
  /** Pages of this search not loaded yet: "All" loads them first (each one a search). */
  pagesToLoad: number;
  loadAll: (onProgress: (done: number, total: number) => void, signal: AbortSignal) => Promise<SearchRecord[]>;
  selected: SearchRecord[];
  allSelected: boolean;
  onSelectAll: (selected: boolean) => void;
}

/** Select all, Copy Selected, and Copy / Print / Export of the current page or of every result. */
export function ResultsToolbar({ pageRecords, allRecords, pagesToLoad, loadAll, selected, allSelected, onSelectAll }: ResultsToolbarProps) {
  const [scope, setScope] = useState<Scope>('page');
  const [exporting, setExporting] = useState<SearchRecord[] | null>(null);
  const [loading, setLoading] = useState<Action | null>(null);
  const records = scope === 'page' ? pageRecords : allRecords;
  const scopeLabel = scope === 'page' ? 'the current page' : 'every page of this search';

  const perform = (action: Action, chosen: SearchRecord[]) => {
    if (action === 'Copy') void copyRecords(chosen);
    else if (action === 'Print') printRecords(chosen, 'Search results');
    else setExporting(chosen);
  };
  // "All" with pages not loaded yet loads them first (LoadAllModal), then acts.
  const act = (action: Action) => (scope === 'all' && pagesToLoad > 0 ? setLoading(action) : perform(action, records));

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
              title={value === 'all' ? 'Every result of this search, up to the deepest page' : undefined}
              onClick={() => setScope(value)}
            >
              {label}
            </button>
          ))}
        </div>
        <button type="button" className="button button-secondary button-small" onClick={() => act('Copy')}>
          <CopyIcon width={15} height={15} />
          Copy
        </button>
        <button type="button" className="button button-secondary button-small" onClick={() => act('Print')}>
          <PrinterIcon width={15} height={15} />
          Print
        </button>
        <button type="button" className="button button-secondary button-small" onClick={() => act('Export CSV')}>
          <DownloadIcon width={15} height={15} />
          Export CSV
        </button>
      </div>
      {exporting && <ExportModal records={exporting} scopeLabel={scopeLabel} onClose={() => setExporting(null)} />}
      {loading && (
        <LoadAllModal
          action={loading}
          missing={pagesToLoad}
          load={loadAll}
          onLoaded={(loaded) => {
            setLoading(null);
            perform(loading, loaded);
          }}
          onClose={() => setLoading(null)}
        />
      )}
    </div>
  );
}
