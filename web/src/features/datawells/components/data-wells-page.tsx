import { useState, type FormEvent } from 'react';
import { CloseIcon, DatabaseIcon, SearchIcon } from '@/components/icons';
import { usePageTitle } from '@/hooks/use-page-title';
import { toast } from '@/lib/toast-store';
import {
  PAGE_SIZES,
  SEARCH_MAX_LENGTH,
  SEARCH_MIN_LENGTH,
  SEARCH_TOO_SHORT,
  SORT_OPTIONS,
  type DataWellSort,
  type PageSize,
} from '../api/datawells-api';
import { useDataWells, type DataWellsView } from '../api/use-data-wells';
import { DataWellItem, formatRecords } from './data-well-item';
import { CatalogueCharts } from './catalogue-charts';
import { Paginator } from '@/components/paginator';
import { LoadFailed } from '@/components/load-failed';
import './datawells.css';

/** /data-wells: the breach-source catalogue, browsed by page or searched. */
export function DataWellsPage() {
  usePageTitle('Data Wells');
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<DataWellSort>('records_desc');
  const [count, setCount] = useState<PageSize>(20);
  const [input, setInput] = useState('');
  /** The query being shown; null in browse mode. */
  const [searched, setSearched] = useState<string | null>(null);

  const view: DataWellsView = searched === null ? { mode: 'browse', page, sort, count } : { mode: 'search', query: searched };
  const { data, error, isLoading, mutate } = useDataWells(view);
  const pages = searched === null && data ? Math.max(1, Math.ceil(data.total / count)) : 1;

  const runSearch = (event: FormEvent) => {
    event.preventDefault();
    const query = input.trim();
    if (query.length < SEARCH_MIN_LENGTH) {
      toast.error(SEARCH_TOO_SHORT);
      return;
    }
    setSearched(query);
  };

  const closeSearch = () => {
    setSearched(null);
    setInput('');
  };

  const goToPage = (next: number) => {
    setPage(next);
    window.scrollTo({ top: 0 });
  };

  return (
    <div className="page">
      <header className="page-header">
        <h1>Data Wells</h1>
        <p className="page-lead">The breach sources behind our search: what leaked, when, and how many records.</p>
      </header>

      <section className="card wells-toolbar">
        <form className="wells-search" role="search" onSubmit={runSearch}>
          <label className="wells-search-field">
            <SearchIcon className="wells-search-icon" />
            <input
              className="input"
              type="search"
              name="datawell-query"
              aria-label="Search data wells"
              placeholder="Search by name or description"
              maxLength={SEARCH_MAX_LENGTH}
              value={input}
              onChange={(event) => setInput(event.currentTarget.value)}
            />
          </label>
          <button type="submit" className="button button-primary">
            Search
          </button>
        </form>
        {searched === null && (
          <div className="wells-controls">
            <label className="wells-control">
              <span className="field-label">Sort by</span>
              <select
                className="input"
                value={sort}
                onChange={(event) => {
                  setSort(event.currentTarget.value as DataWellSort);
                  setPage(1);
                }}
              >
                {SORT_OPTIONS.map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </select>
            </label>
            <label className="wells-control">
              <span className="field-label">Per page</span>
              <select
                className="input"
                value={count}
                onChange={(event) => {
                  setCount(Number(event.currentTarget.value) as PageSize);
                  setPage(1);
                }}
              >
                {PAGE_SIZES.map((size) => (
                  <option key={size} value={size}>
                    {size}
                  </option>
                ))}
              </select>
            </label>
          </div>
        )}
      </section>

      <div className="wells-summary">
        {searched === null ? (
          <p data-testid="data-wells-summary">
            {data ? `${formatRecords(data.total)} data wells · page ${page} of ${pages}` : 'Loading data wells…'}
          </p>
        ) : (
          <>
            <p data-testid="data-wells-summary">
              {data && !isLoading ? `${formatRecords(data.total)} result${data.total === 1 ? '' : 's'} for “${searched}”` : `Searching for “${searched}”…`}
            </p>
            <button type="button" className="button button-secondary button-small" onClick={closeSearch}>
              <CloseIcon width={14} height={14} />
              Close
            </button>
          </>
        )}
      </div>

      {error && !isLoading ? (
        <LoadFailed title="Could not pull data wells" retry={mutate} icon={<DatabaseIcon width={28} height={28} />} />
      ) : data && data.wells.length > 0 ? (
        <ul className="card wells-list" aria-label="Data wells" aria-busy={isLoading}>
          {data.wells.map((well) => (
            <DataWellItem key={well.name} well={well} />
          ))}
        </ul>
      ) : data && !isLoading ? (
        <section className="card empty-state">
          <span className="empty-icon">
            <DatabaseIcon width={28} height={28} />
          </span>
          <h2>{searched === null ? 'No data wells yet' : 'No matching data wells'}</h2>
          <p className="muted">
            {searched === null ? 'Breach sources appear here once they are ingested.' : 'Try another name or a word from the description.'}
          </p>
        </section>
      ) : (
        <section className="card status-card" aria-busy="true">
          <span className="spinner" />
        </section>
      )}

      {searched === null && <Paginator page={page} pages={pages} onPage={goToPage} />}

      {/* The whole catalogue in charts, under the list it summarises; not beside a search's matches. */}
      {searched === null && <CatalogueCharts />}
    </div>
  );
}
