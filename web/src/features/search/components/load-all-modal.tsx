import { useEffect, useRef, useState } from 'react';
import { Modal } from '@/components/modal';
import { toast } from '@/lib/toast-store';
import type { SearchRecord } from '../api/search-api';

interface LoadAllModalProps {
  /** What "All" will then do: "Copy", "Print" or "Export CSV". */
  action: string;
  /** Pages not loaded yet (each one is a search). */
  missing: number;
  load: (onProgress: (done: number, total: number) => void, signal: AbortSignal) => Promise<SearchRecord[]>;
  onLoaded: (records: SearchRecord[]) => void;
  onClose: () => void;
}

/**
 * "All" covers every result up to the deepest page: the pages not loaded yet are fetched
 * first. The searcher is told how many searches that takes, then sees the progress and can
 * stop it; once loaded, the action runs from a button (copying needs the click).
 */
export function LoadAllModal({ action, missing, load, onLoaded, onClose }: LoadAllModalProps) {
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [records, setRecords] = useState<SearchRecord[] | null>(null);
  const controller = useRef<AbortController | null>(null);

  useEffect(() => () => controller.current?.abort(), []);

  const start = () => {
    controller.current = new AbortController();
    setProgress({ done: 0, total: missing });
    load((done, total) => setProgress({ done, total }), controller.current.signal).then(setRecords, (error: unknown) => {
      if (!(error instanceof DOMException && error.name === 'AbortError')) toast.error('Could not load every page, try again later.');
      onClose();
    });
  };

  const stop = () => {
    controller.current?.abort();
    onClose();
  };

  return (
    <Modal
      title={`${action}: all results`}
      onClose={stop}
      actions={
        records ? (
          <>
            <button type="button" className="button button-secondary" onClick={onClose}>
              Cancel
            </button>
            <button type="button" className="button button-primary" onClick={() => onLoaded(records)} autoFocus>
              {action}
            </button>
          </>
        ) : progress ? (
          <button type="button" className="button button-secondary" onClick={stop}>
            Stop
          </button>
        ) : (
          <>
            <button type="button" className="button button-secondary" onClick={onClose}>
              Cancel
            </button>
            <button type="button" className="button button-primary" onClick={start} autoFocus>
              Load {missing} page{missing === 1 ? '' : 's'}
            </button>
          </>
        )
      }
    >
      {records ? (
        <p role="status" data-testid="load-all-ready">
          Every page is loaded: {records.length.toLocaleString('en-US')} record{records.length === 1 ? '' : 's'}.
        </p>
      ) : progress ? (
        <div className="load-all-progress" data-testid="load-all-progress">
          <p role="status">
            Loaded {progress.done} of {progress.total} pages…
          </p>
          <progress max={progress.total} value={progress.done} aria-label="Pages loaded" />
        </div>
      ) : (
        <p data-testid="load-all-notice">
          All covers every result, up to the deepest page. {missing} page{missing === 1 ? ' is' : 's are'} not loaded yet; loading{' '}
          {missing === 1 ? 'it counts as one search' : `them counts as ${missing} searches`} toward your daily limit.
        </p>
      )}
    </Modal>
  );
}
