/** The theme's colours for a chart, read from the CSS variables of the current theme (web/src/styles/app.css). */
export interface ThemeColors {
  text: string;
  muted: string;
  border: string;
  accent: string;
  danger: string;
  warning: string;
  success: string;
  surface: string;
  /** Categorical colours that keep 3:1 against the surface in both themes. */
  series: string[];
}

export function themeColors(): ThemeColors {
  const style = getComputedStyle(document.documentElement);
  const read = (name: string) => style.getPropertyValue(name).trim();
  const colors = {
    text: read('--text'),
    muted: read('--muted'),
    border: read('--border-strong'),
    accent: read('--accent'),
    danger: read('--danger'),
    warning: read('--warning'),
    success: read('--success'),
    surface: read('--surface'),
  };
  return { ...colors, series: [colors.accent, colors.warning, colors.danger, colors.success, colors.muted] };
}
