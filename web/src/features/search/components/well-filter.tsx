import type { SearchParams } from '../api/search-api';
import type { WellExposure } from '../api/timeline-api';

/** The exposure timeline of a search, with the search it was drawn for (a chosen well filters that one). */
export interface TimelineState {
  params: SearchParams;
  data: WellExposure;
}

/** Says which well the results are limited to, with the way back to every well. */
export function WellFilterNotice({ well, onClear }: { well: string; onClear: () => void }) {
  return (
    <p className="well-filter" role="status" data-testid="well-filter">
      <span>
        Showing only results from <strong>{well}</strong>.
      </span>{' '}
      <button type="button" className="button button-ghost button-small" onClick={onClear}>
        Show every well
      </button>
    </p>
  );
}
