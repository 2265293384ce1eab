import { StarIcon } from '@/components/icons';

/**
 * A favourite whose record is not in memory: the browser keeps only its id and data well,
 * so that is all it shows while its record is fetched by id, or for good when it was removed
 * or the account has no subscription (a search brings it back then).
 */
export function FavouriteRow({ id, databaseName, onFavourite }: { id: string; databaseName?: string; onFavourite: () => void }) {
  return (
    <li className="result" data-testid="search-result" data-record-id={id}>
      <div className="result-head">
        <span className="result-check" aria-hidden="true" />
        <span className="result-summary">
          <span className="result-headline">
            <span className="result-kind">Record</span>
            <span className="result-value" data-testid="result-headline">
              <span className="value-text">#{id}</span>
            </span>
          </span>
          <span className="result-preview muted">Search again to see its fields.</span>
        </span>
        <span className="result-source" title="Data well" data-testid="result-source">
          {databaseName ?? ''}
        </span>
        <div className="result-actions">
          <button
            type="button"
            className="icon-button result-favourite on"
            aria-pressed
            aria-label="Remove from favourites"
            title="Remove from favourites"
            onClick={onFavourite}
          >
            <StarIcon />
          </button>
        </div>
      </div>
    </li>
  );
}
