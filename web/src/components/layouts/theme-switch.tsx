import { toggleTheme, useTheme } from '@/lib/theme';
import { MoonIcon, SunIcon } from '../icons';

/** Switches between the dark (default) and light themes; the choice is kept in a cookie. */
export function ThemeSwitch({ withLabel = false }: { withLabel?: boolean }) {
  const theme = useTheme();
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      className={withLabel ? 'button button-ghost theme-switch' : 'icon-button theme-switch'}
      onClick={toggleTheme}
      aria-label={`Switch to ${next} theme`}
      title={`Switch to ${next} theme`}
      data-testid="theme-switch"
    >
      {theme === 'dark' ? <SunIcon /> : <MoonIcon />}
      {withLabel && <span>{theme === 'dark' ? 'Light theme' : 'Dark theme'}</span>}
    </button>
  );
}
