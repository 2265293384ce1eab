/**
 * Favourite records: client state. Breach records never reach the browser's storage:
 * localStorage keeps, per signed-in user (by email), only each favourite's record id and data
 * well name, so a reload, or the next sign-in of that account on this device, still lists
 * them; the full records (starred in this visit, or fetched again by id:
 * rememberFavouriteRecords) are kept in memory only, and signing out forgets them. The stored
 * list stays across a sign-out (a user does not expect signing out to delete their list); another
 * account on the device has its own list and never reads this one.
 */
import { useCallback, useSyncExternalStore } from 'react';
import { authToken } from '@/lib/api';
import type { SearchRecord } from '../api/search-api';

/** localStorage key of an account's list: this prefix and the email, lower-cased. */
const PREFIX = 'search-favourites:';

/** What is stored of a favourite: nothing of the record's content. */
interface FavouriteRef {
  id: string;
  database_name?: string;
}

const listeners = new Set<() => void>();
/** Stored references per storage key, read once. */
const refs = new Map<string, FavouriteRef[]>();
/** Full records starred during this visit, by id: memory only. */
const records = new Map<string, SearchRecord>();
/** The list handed to React, rebuilt when refs or records change. */
const views = new Map<string, SearchRecord[]>();

function storageKey(owner: string): string {
  return PREFIX + owner.toLowerCase();
}

function toRef(item: unknown): FavouriteRef | null {
  if (!item || typeof item !== 'object') return null;
  const { id, database_name } = item as Record<string, unknown>;
  if (typeof id !== 'string' || !id) return null;
  return typeof database_name === 'string' ? { id, database_name } : { id };
}

function save(key: string, list: FavouriteRef[]): void {
  try {
    if (list.length === 0) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(list));
  } catch {
    // Storage full or blocked: favourites still work for this visit.
  }
}

function readRefs(owner: string): FavouriteRef[] {
  const key = storageKey(owner);
  const cached = refs.get(key);
  if (cached) return cached;
  let list: FavouriteRef[] = [];
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(key);
    const parsed: unknown = JSON.parse(stored ?? '[]');
    if (Array.isArray(parsed)) list = parsed.map(toRef).filter((ref): ref is FavouriteRef => ref !== null);
  } catch {
    list = [];
  }
  refs.set(key, list);
  // Lists written by earlier versions held whole records: rewrite them as references.
  if (stored !== null && stored !== JSON.stringify(list)) save(key, list);
  return list;
}

function view(owner: string): SearchRecord[] {
  const key = storageKey(owner);
  const cached = views.get(key);
  if (cached) return cached;
  // Offline of the record itself (after a reload) only its id and data well are shown.
  const list = readRefs(owner).map((ref) => records.get(ref.id) ?? { ...ref });
  views.set(key, list);
  return list;
}

function changed(): void {
  views.clear();
  listeners.forEach((listener) => listener());
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

// Signed out (or the session lapsed): nothing of the records stays in memory.
authToken.subscribe(() => {
  if (authToken.get() !== null) return;
  refs.clear();
  records.clear();
  changed();
});

const NONE: SearchRecord[] = [];

/**
 * Records fetched again by id (POST /search/records, after a reload): kept in memory for
 * this visit like the ones starred in it, never stored. Only ids that are favourites count.
 */
export function rememberFavouriteRecords(found: SearchRecord[]): void {
  let added = false;
  for (const record of found) {
    if (records.has(record.id)) continue;
    records.set(record.id, record);
    added = true;
  }
  if (added) changed();
}

/** True for a favourite known by its id (and data well) only, its record not in memory. */
export function isFavouriteReference(record: SearchRecord): boolean {
  return !records.has(record.id) && Object.keys(record).every((key) => key === 'id' || key === 'database_name');
}

/** The owner's favourites and a toggle; `owner` is the signed-in email (empty while loading). */
export function useFavourites(owner: string) {
  const favourites = useSyncExternalStore(subscribe, () => (owner ? view(owner) : NONE));
  const toggle = useCallback(
    (record: SearchRecord) => {
      if (!owner) return;
      const current = readRefs(owner);
      let next: FavouriteRef[];
      if (current.some((item) => item.id === record.id)) {
        next = current.filter((item) => item.id !== record.id);
        records.delete(record.id);
      } else {
        const { removed: _removed, ...clean } = record as SearchRecord & { removed?: boolean };
        next = [...current, record.database_name ? { id: record.id, database_name: record.database_name } : { id: record.id }];
        records.set(record.id, clean);
      }
      const key = storageKey(owner);
      refs.set(key, next);
      save(key, next);
      changed();
    },
    [owner],
  );
  return { favourites, toggle, isFavourite: (id: string) => favourites.some((item) => item.id === id) };
}
