/**
 * The wells-over-time drawing of the exposure timeline and the domain overview: x the breach
 * date, one row per well, r the matching records, the well's name above its dot. Type-only
 * imports: the module loads without the dashboard's aliases (server-side tests import the
 * feature's index).
 */
import type { PlotModule } from '@/components/chart/chart';
import type { ThemeColors } from '@/components/chart/theme-colors';
import type { ExposedWell } from '../api/timeline-api';

const numbers = new Intl.NumberFormat('en-US');
const records = (n: number) => `${numbers.format(n)} record${n === 1 ? '' : 's'}`;
const ROW = 52;

/** Draws the dated wells: x the breach date, one row per well, r the matching records, the name above its dot. */
export function drawWellTimeline(Plot: PlotModule, width: number, colors: ThemeColors, wells: ExposedWell[], onWell?: (name: string) => void) {
  const rows = wells.map((w) => ({ ...w, when: new Date(`${w.date}T00:00:00Z`) }));
  const times = rows.map((r) => r.when.getTime());
  const pad = Math.max(180 * 86_400_000, (Math.max(...times) - Math.min(...times)) * 0.05);
  // One row per well, ROW apart; each name sits above its dot, clear of the row above's largest dot.
  const top = 40;
  const svg = Plot.plot({
    width,
    height: top + (rows.length - 1) * ROW + 20 + 32,
    marginTop: top,
    marginBottom: 32,
    marginLeft: 20,
    marginRight: 20,
    style: { color: colors.text, background: 'transparent', fontSize: '12px' },
    x: { type: 'utc', domain: [new Date(Math.min(...times) - pad), new Date(Math.max(...times) + pad)], label: 'Breach date', grid: true, ticks: width < 500 ? 4 : 8 },
    y: { type: 'point', domain: rows.map((r) => r.name), axis: null, padding: 0, range: [top, top + (rows.length - 1) * ROW] },
    r: { range: [4, 14], domain: [0, Math.max(...rows.map((r) => r.records))] },
    marks: [
      Plot.ruleY(rows, { y: 'name', stroke: colors.border, strokeOpacity: 0.6 }),
      Plot.dot(rows, {
        x: 'when',
        y: 'name',
        r: 'records',
        sort: null,
        fill: colors.accent,
        fillOpacity: 0.75,
        stroke: colors.text,
        strokeWidth: 1,
        title: (r: ExposedWell) => `${r.name}: ${records(r.records)}, breached ${r.date}`,
      }),
      Plot.text(rows, {
        y: 'name',
        text: (r: ExposedWell) => `${r.name} · ${records(r.records)}`,
        frameAnchor: 'left',
        textAnchor: 'start',
        lineAnchor: 'bottom',
        dy: -16,
        fill: colors.text,
        fontWeight: 600,
        // Long names end in an ellipsis inside the frame (the table and the dot's title hold them whole; Plot estimates widths, bold runs wider).
        lineWidth: Math.max(8, (width - 48) / 16),
        textOverflow: 'ellipsis',
      }),
    ],
  });
  if (onWell) {
    // Dots are drawn in the data's order (sort: null): the n-th circle is the n-th well. (Plot's
    // mark names are still aria-labels here; the chart moves them to data-mark afterwards.)
    svg.querySelectorAll('g[aria-label="dot"] circle').forEach((circle, i) => {
      const well = rows[i];
      if (!well) return;
      circle.setAttribute('data-well', well.name);
      (circle as SVGElement).style.cursor = 'pointer';
      circle.addEventListener('click', () => onWell(well.name));
    });
  }
  return svg;
}

