import { useEffect } from 'react';
import { createStore } from './store';

export type Theme = 'dark' | 'light';

const COOKIE = 'theme';
/** The theme cookie lives 72,000,000,000 ms (about 2.3 years). */
const COOKIE_LIFETIME_MS = 72_000_000_000;
const DEFAULT_THEME: Theme = 'dark';

function readCookie(): Theme {
  const match = document.cookie.match(/(?:^|;\s*)theme=(dark|light)(?:;|$)/);
  return (match?.[1] as Theme | undefined) ?? DEFAULT_THEME;
}

const theme = createStore<Theme>(readCookie());
/** A theme imposed by the mounted screen (the sign-in screen forces light), not saved. */
let forced: Theme | null = null;

function paint(): void {
  document.documentElement.setAttribute('data-theme', forced ?? theme.get());
}

export function initTheme(): void {
  paint();
}

export function setTheme(next: Theme): void {
  const expires = new Date(Date.now() + COOKIE_LIFETIME_MS).toUTCString();
  document.cookie = `${COOKIE}=${next}; expires=${expires}; path=/; SameSite=Lax`;
  theme.set(next);
  paint();
}

export function toggleTheme(): void {
  setTheme(theme.get() === 'dark' ? 'light' : 'dark');
}

export function useTheme(): Theme {
  return theme.use();
}

/** Shows `value` while the calling component is mounted, then restores the user's theme. */
export function useForcedTheme(value: Theme): void {
  useEffect(() => {
    forced = value;
    paint();
    return () => {
      forced = null;
      paint();
    };
  }, [value]);
}
