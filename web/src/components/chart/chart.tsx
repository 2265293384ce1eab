/**
 * One chart of the dashboard: an SVG drawn by Observable Plot (loaded on first use, in its
 * own chunk), inside a figure whose caption states the main facts in words, with the same
 * numbers as a table behind a disclosure button (keyboard and screen readers reach the data
 * without the picture). Colours are read from the theme's CSS variables at drawing time and
 * the chart is drawn again when the theme or the width changes (docs/charts.md).
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { ScrollRegion } from '../scroll-region';
import { themeColors, type ThemeColors } from './theme-colors';
import './chart.css';

/** Plot's module, as the chart's `draw` receives it. */
export type PlotModule = typeof import('@observablehq/plot');

export interface ChartTable {
  /** Column headings. */
  head: readonly string[];
  /** Cell texts, one array per row (numbers formatted by the caller). */
  rows: readonly (readonly ReactNode[])[];
}

export interface ChartProps {
  /** The chart's name: its heading and the SVG's accessible name. */
  title: string;
  /** Heading level of the title (default 3). */
  level?: 2 | 3 | 4;
  /** The text alternative: the main facts in one or two sentences, shown as the caption. */
  summary: string;
  /** The same data as a table. */
  table: ChartTable;
  /** Draws the SVG with Plot at the given width in the theme's colours. */
  draw: (Plot: PlotModule, width: number, colors: ThemeColors) => SVGSVGElement | HTMLElement;
  /** Extra controls under the caption (a CSV link, a legend). */
  actions?: ReactNode;
  /** Test id of the figure. */
  testId?: string;
}

let plotModule: Promise<PlotModule> | undefined;
const loadPlot = () => (plotModule ??= import('@observablehq/plot'));

/** The width of the element, followed as it changes. */
function useWidth(ref: { current: HTMLElement | null }) {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.floor(entry!.contentRect.width)));
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

/** The `data-theme` of the document, followed as it changes. */
function useThemeName() {
  const [theme, setTheme] = useState(() => document.documentElement.getAttribute('data-theme') ?? '');
  useEffect(() => {
    const observer = new MutationObserver(() => setTheme(document.documentElement.getAttribute('data-theme') ?? ''));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  }, []);
  return theme;
}

export function Chart({ title, level = 3, summary, table, draw, actions, testId }: ChartProps) {
  const id = useId();
  const holder = useRef<HTMLDivElement>(null);
  const width = useWidth(holder);
  const theme = useThemeName();
  const [failed, setFailed] = useState(false);
  const [showTable, setShowTable] = useState(false);
  const Heading = `h${level}` as const;

  useEffect(() => {
    const element = holder.current;
    if (!element || width === 0) return;
    let cancelled = false;
    loadPlot().then(
      (Plot) => {
        if (cancelled) return;
        const svg = draw(Plot, width, themeColors());
        // The picture is named and described by the figure's heading and caption.
        const root = svg instanceof SVGSVGElement ? svg : svg.querySelector('svg');
        // Plot names its marks with aria-label on <g> elements; inside a named image those are
        // prohibited ARIA (axe: aria-prohibited-attr), so the name moves to data-mark.
        for (const node of svg.querySelectorAll('[aria-label], [aria-description]')) {
          const label = node.getAttribute('aria-label');
          if (label !== null) node.setAttribute('data-mark', label);
          node.removeAttribute('aria-label');
          node.removeAttribute('aria-description');
        }
        root?.setAttribute('role', 'img');
        root?.setAttribute('aria-labelledby', `${id}-title`);
        root?.setAttribute('aria-describedby', `${id}-summary`);
        element.replaceChildren(svg);
      },
      () => !cancelled && setFailed(true),
    );
    return () => {
      cancelled = true;
    };
  }, [draw, width, theme, id]);

  return (
    <figure className="chart" aria-labelledby={`${id}-title`} data-testid={testId}>
      <Heading id={`${id}-title`} className="chart-title">
        {title}
      </Heading>
      <figcaption id={`${id}-summary`} className="chart-summary">
        {summary}
      </figcaption>
      <div ref={holder} className="chart-plot">
        {failed ? <p className="chart-failed">The chart could not be drawn; the table below holds its numbers.</p> : null}
      </div>
      <div className="chart-actions">
        <button type="button" className="button button-ghost button-small" aria-expanded={showTable} aria-controls={`${id}-table`} onClick={() => setShowTable((v) => !v)}>
          {showTable ? 'Hide the data table' : 'Show the data as a table'}
        </button>
        {actions}
      </div>
      <div id={`${id}-table`} hidden={!showTable && !failed}>
        <ScrollRegion label={`${title}: data`}>
          <table className="chart-table">
            <caption className="chart-table-caption">{title}</caption>
            <thead>
              <tr>
                {table.head.map((h) => (
                  <th key={h} scope="col">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((cell, c) => (c === 0 ? <th key={c} scope="row">{cell}</th> : <td key={c}>{cell}</td>))}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </div>
    </figure>
  );
}
