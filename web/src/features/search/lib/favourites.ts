/**
 * Favourite records: client state (spec 2 §3), kept in localStorage per signed-in user so
 * they survive a reload. Nothing else of the search is stored in the browser.
 */
import { useCallback, useSyncExternalStore } from 'react';
import type { SearchRecord } from '../api/search-api';

const PREFIX = 'search-favourites:';
const listeners = new Set<() => void>();
const cache = new Map<string, SearchRecord[]>();

function storageKey(owner: string): string {
  return PREFIX + owner.toLowerCase();
}

function read(owner: string): SearchRecord[] {
  const key = storageKey(owner);
  const cached = cache.get(key);
  if (cached) return cached;
  let records: SearchRecord[] = [];
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(key) ?? '[]');
    if (Array.isArray(parsed)) records = parsed.filter((item): item is SearchRecord => Boolean(item) && typeof item === 'object' && typeof item.id === 'string');
  } catch {
    records = [];
  }
  cache.set(key, records);
  return records;
}

function write(owner: string, records: SearchRecord[]): void {
  const key = storageKey(owner);
  cache.set(key, records);
  try {
    localStorage.setItem(key, JSON.stringify(records));
  } catch {
    // Storage full or blocked: favourites still work for this visit.
  }
  listeners.forEach((listener) => listener());
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const NONE: SearchRecord[] = [];

/** The owner's favourites and a toggle; `owner` is the signed-in email (empty while loading). */
export function useFavourites(owner: string) {
  const favourites = useSyncExternalStore(subscribe, () => (owner ? read(owner) : NONE));
  const toggle = useCallback(
    (record: SearchRecord) => {
      if (!owner) return;
      const current = read(owner);
      const { removed: _removed, ...clean } = record as SearchRecord & { removed?: boolean };
      write(owner, current.some((item) => item.id === record.id) ? current.filter((item) => item.id !== record.id) : [...current, clean]);
    },
    [owner],
  );
  return { favourites, toggle, isFavourite: (id: string) => favourites.some((item) => item.id === id) };
}
