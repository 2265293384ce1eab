import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useSearch as useQueryString } from 'wouter';
import { SearchIcon, StarIcon } from '@/components/icons';
import { Paginator } from '@/components/paginator';
import { useUser } from '@/features/user';
import { usePageTitle } from '@/hooks/use-page-title';
import { toastErrors } from '@/lib/toast-store';
import { applyModeSuffix, isSearchType, validateSearch, type SearchType } from '@common/search-rules';
import type { SearchRecord } from '../api/search-api';
import { dashboardPageCount } from '@common/search-rules';
import { useSearch } from '../api/use-search';
import { isFavouriteReference, rememberFavouriteRecords, useFavourites } from '../lib/favourites';
import { fetchRecords } from '../api/search-api';
import { fetchTimeline, TIMELINE_TYPES, withWell } from '../api/timeline-api';
import { ExposureTimeline } from './exposure-timeline';
import { WellFilterNotice, type TimelineState } from './well-filter';
import { RemoveEntryModal } from './remove-entry-modal';
import { ResultRow } from './result-row';
import { FavouriteRow } from './favourite-row';
import { ResultsToolbar } from './results-toolbar';
import { InfoCards, StatsBar, SubscriptionNotice } from './search-extras';
import { SearchForm, type SearchOptions } from './search-form';
import './search.css';
import { emptyHints } from '../lib/empty-hints';

const EMPTY_RESULTS = 'No document matches the specified search terms.';

/** /search: tabs, query, toggles, statistics, favourites, results, paging. */
export function SearchPage() {
  usePageTitle('Search');
  const { data: user } = useUser();
  const subscribed = Boolean(user?.search_access);
  const queryString = useQueryString();

  const [type, setType] = useState<SearchType>('all');
  const [input, setInput] = useState('');
  const [options, setOptions] = useState<SearchOptions>({ regex: false, wildcard: false, deduplicate: true });
  const { state, searching, search, removed, markRemoved, loadAll, pagesToLoad } = useSearch();
  const [selected, setSelected] = useState<ReadonlyMap<string, SearchRecord>>(new Map());
  const [showFavourites, setShowFavourites] = useState(true);
  const [removing, setRemoving] = useState<SearchRecord | null>(null);
  const { favourites, toggle: toggleFavourite, isFavourite } = useFavourites(user?.email ?? '');
  const listTop = useRef<HTMLDivElement>(null);
  // The timeline of the last search typed (not of a well chosen from it), and the well chosen.
  const [timeline, setTimeline] = useState<TimelineState | null>(null);
  const [well, setWell] = useState<string | null>(null);

  // Favourites kept as ids only (after a reload) are shown again by fetching their records
  // by id, once per visit and only with a subscription (values): one counted search.
  const asked = useRef(new Set<string>());
  useEffect(() => {
    if (!subscribed) return;
    const missing = favourites.filter((favourite) => isFavouriteReference(favourite) && !asked.current.has(favourite.id)).map((f) => f.id);
    if (missing.length === 0) return;
    const batch = missing.slice(0, 50);
    for (const id of batch) asked.current.add(id);
    fetchRecords(batch).then(
      ({ results }) => rememberFavouriteRecords(results),
      () => undefined, // they stay listed by id; a search brings them back
    );
  }, [favourites, subscribed]);

  const scrollToTop = () => {
    window.scrollTo({ top: 0 });
    listTop.current?.scrollTo?.({ top: 0 });
  };

  const runQuery = useCallback(
    async (text: string, searchType: SearchType, opts: SearchOptions) => {
      if (searching) return; // one search at a time; validation waits too
      // A typed &wildcard / &regex is removed and turns its mode on, as the engine reads it.
      const { query, regex, wildcard, error } = applyModeSuffix({ query: text, regex: opts.regex, wildcard: opts.wildcard });
      if (toastErrors(error ? [error] : validateSearch(query, searchType, wildcard))) return;
      if (regex !== opts.regex || wildcard !== opts.wildcard) setOptions({ ...opts, regex, wildcard });
      const params = { query, type: searchType, page: 1, ...opts, regex, wildcard };
      const response = await search(params);
      if (response) {
        setSelected(new Map());
        setWell(null);
        setTimeline(null);
        scrollToTop();
        // After the search (one slot at a time), when it found something: its wells over time,
        // one more counted search.
        if (TIMELINE_TYPES.includes(searchType) && response.total_results > 0) {
          fetchTimeline(params).then(
            (data) => setTimeline({ params, data }),
            () => setTimeline(null), // the results stand without it
          );
        }
      }
    },
    [search, searching],
  );

  /** Shows only one well's results of the timeline's search (the search language's source filter); null shows them all again. */
  const chooseWell = async (name: string | null) => {
    if (!timeline || searching) return;
    const params = { ...timeline.params, page: 1, query: name === null ? timeline.params.query : withWell(timeline.params.query, name) };
    if (await search(params)) {
      setWell(name);
      setSelected(new Map());
      scrollToTop();
    }
  };

  const goToPage = async (page: number) => {
    if (!state || searching) return;
    if (await search({ ...state.params, page })) scrollToTop();
  };

  // ?q= (and optionally ?type=) fills the form and searches once on arrival.
  const arrived = useRef(false);
  useEffect(() => {
    if (arrived.current) return;
    arrived.current = true;
    const params = new URLSearchParams(queryString);
    const q = params.get('q');
    if (!q) return;
    const arrivalType = params.get('type');
    const searchType = isSearchType(arrivalType) ? arrivalType : 'all';
    setInput(q);
    setType(searchType);
    void runQuery(q, searchType, options);
  }, [queryString, runQuery, options]);

  const response = state?.response ?? null;
  const page = state?.params.page ?? 1;
  const pages = response ? dashboardPageCount(response.total_results) : 1;
  const results = response?.results ?? [];
  const hidden = Boolean(response?.values_hidden) || (user !== undefined && !subscribed);
  const allLoaded = useMemo(
    () => (state ? [...state.loaded.entries()].sort(([a], [b]) => a - b).flatMap(([, records]) => records) : []),
    [state],
  );
  const allSelected = results.length > 0 && results.every((record) => selected.has(record.id));

  const select = (record: SearchRecord, on: boolean) =>
    setSelected((current) => {
      const next = new Map(current);
      if (on) next.set(record.id, record);
      else next.delete(record.id);
      return next;
    });

  const selectPage = (on: boolean) =>
    setSelected((current) => {
      const next = new Map(current);
      for (const record of results) {
        if (on) next.set(record.id, record);
        else next.delete(record.id);
      }
      return next;
    });

  const row = (record: SearchRecord, key: string) => (
    <ResultRow
      key={key}
      record={record}
      selected={selected.has(record.id)}
      favourite={isFavourite(record.id)}
      removed={removed.has(record.id)}
      subscribed={subscribed}
      onSelect={(on) => select(record, on)}
      onFavourite={() => toggleFavourite(record)}
      onRemove={() => setRemoving(record)}
    />
  );

  return (
    <div className="page search-page">
      <header className="page-header">
        <h1>Search</h1>
        <p className="page-lead">Look up leaked emails, usernames, passwords, IP addresses and more across every data well.</p>
      </header>

      <SearchForm
        type={type}
        onType={setType}
        query={input}
        onQuery={setInput}
        options={options}
        onOptions={setOptions}
        searching={searching}
        onSubmit={() => void runQuery(input, type, options)}
      />

      <StatsBar response={response} />

      <section className="favourites" aria-label="Favourites" data-testid="favourites">
        <header className="favourites-head">
          <h2>
            <StarIcon width={16} height={16} />
            Favourites <span className="count-pill">{favourites.length}</span>
          </h2>
          <button
            type="button"
            className="button button-ghost button-small"
            aria-expanded={showFavourites}
            onClick={() => setShowFavourites((shown) => !shown)}
          >
            {showFavourites ? 'Hide' : 'Show'}
          </button>
        </header>
        {showFavourites &&
          (favourites.length > 0 ? (
            <ul className="card results-list" data-testid="favourites-list">
              {favourites.map((favourite) => {
                // Only the id is kept across visits: the record shows when a search brings it.
                const record = isFavouriteReference(favourite) ? results.find((item) => item.id === favourite.id) : favourite;
                return record ? (
                  row(record, `fav-${favourite.id}`)
                ) : (
                  <FavouriteRow
                    key={`fav-${favourite.id}`}
                    id={favourite.id}
                    databaseName={favourite.database_name}
                    onFavourite={() => toggleFavourite(favourite)}
                  />
                );
              })}
            </ul>
          ) : (
            <p className="favourites-empty muted">Star a result to keep it here.</p>
          ))}
      </section>

      {timeline && (
        <ExposureTimeline data={timeline.data} onWell={subscribed ? (name) => void chooseWell(name) : undefined} />
      )}
      {well !== null && <WellFilterNotice well={well} onClear={() => void chooseWell(null)} />}

      <div ref={listTop} className="results-area" aria-busy={searching}>
        {hidden ? (
          <SubscriptionNotice apiCredits={user?.search_credits ?? 0} />
        ) : !response ? (
          searching ? (
            <section className="card status-card" aria-busy="true">
              <span className="spinner" />
              <p className="muted">Searching…</p>
            </section>
          ) : (
            <section className="card empty-state">
              <span className="empty-icon">
                <SearchIcon width={28} height={28} />
              </span>
              <h2>Search leaked records</h2>
              <p className="muted">Pick a tab, type at least 4 characters and press Enter. Quote terms that contain spaces.</p>
            </section>
          )
        ) : results.length === 0 ? (
          <section className="card empty-state" data-testid="search-empty">
            <span className="empty-icon">
              <SearchIcon width={28} height={28} />
            </span>
            <h2>{EMPTY_RESULTS}</h2>
            {state && emptyHints(state.params).length > 0 ? (
              <ul className="empty-hints" data-testid="search-empty-hints">
                {emptyHints(state.params).map((hint) => (
                  <li key={hint}>{hint}</li>
                ))}
              </ul>
            ) : (
              <p className="muted">Check the spelling, try another tab, or widen the query with a wildcard.</p>
            )}
          </section>
        ) : (
          <>
            <ResultsToolbar
              pageRecords={results}
              allRecords={allLoaded}
              pagesToLoad={pagesToLoad}
              loadAll={loadAll}
              selected={[...selected.values()]}
              allSelected={allSelected}
              onSelectAll={selectPage}
            />
            <ul className={`card results-list${searching ? ' busy' : ''}`} data-testid="results-list" aria-label="Search results">
              {results.map((record, i) => row(record, `${page}-${i}-${record.id}`))}
            </ul>
            <Paginator page={page} pages={pages} onPage={(next) => void goToPage(next)} disabled={searching} />
          </>
        )}
      </div>

      <InfoCards />

      {removing && <RemoveEntryModal record={removing} onClose={() => setRemoving(null)} onRequested={markRemoved} />}
    </div>
  );
}
