/**
 * The Data Wells page's charts (docs/charts.md): breaches and records per breach year, the
 * largest wells and how the wells expose passwords, all from one GET /datawells/charts.
 * Well names are breach data: Plot writes them as SVG text and the tables as text nodes.
 */
import { useCallback, useMemo } from 'react';
import { Chart, type PlotModule } from '@/components/chart/chart';
import type { ThemeColors } from '@/components/chart/theme-colors';
import type { CatalogueCharts as Numbers } from '../api/datawells-api';
import { useCatalogueCharts } from '../api/use-data-wells';
import { formatRecords, formatWellDate } from './data-well-item';

/** Axis numbers: 0, 500, 5K, 12M. */
const compactFormat = new Intl.NumberFormat('en-US', { notation: 'compact' });
const compact = (n: number) => compactFormat.format(n);
const plural = (n: number, one: string, many: string) => `${formatRecords(n)} ${n === 1 ? one : many}`;

/** Plot's common options: the theme's text colour, no background, the page's font size. */
const frame = (width: number, colors: ThemeColors) => ({
  width,
  style: { color: colors.text, background: 'transparent', fontSize: '12px', overflow: 'visible' },
});

/** Every nth year labelled, so the labels never overlap at the given width. */
function yearTicks(years: number[], width: number) {
  const step = Math.max(1, Math.ceil(years.length / Math.max(1, Math.floor(width / 44))));
  return years.filter((_, i) => i % step === 0);
}

type YearKey = 'wells' | 'records';

function drawPerYear(data: Numbers, key: YearKey) {
  return (Plot: PlotModule, width: number, colors: ThemeColors) =>
    Plot.plot({
      ...frame(width, colors),
      height: 220,
      marginLeft: 48,
      x: { type: 'band', label: 'Breach year', ticks: yearTicks(data.years.map((y) => y.year), width), tickFormat: (y: number) => String(y) },
      y: { label: key === 'wells' ? 'Wells' : 'Records', grid: true, tickFormat: compact, ...(key === 'wells' ? { ticks: Math.min(5, Math.max(1, ...data.years.map((y) => y.wells))) } : {}) },
      marks: [
        Plot.barY(data.years, { x: 'year', y: key, fill: key === 'wells' ? colors.accent : colors.warning, insetLeft: 1, insetRight: 1 }),
        Plot.ruleY([0], { stroke: colors.border }),
      ],
    });
}

function undatedNote(data: Numbers) {
  return data.undated.wells === 0
    ? 'Every well has a breach date.'
    : `${plural(data.undated.wells, 'well has', 'wells have')} no breach date (${plural(data.undated.records, 'record', 'records')}); not in the chart.`;
}

function PerYearCharts({ data }: { data: Numbers }) {
  const busiest = (key: YearKey) => data.years.reduce((best, y) => (y[key] > best[key] ? y : best), data.years[0]!);
  const span = `${data.years[0]!.year} to ${data.years.at(-1)!.year}`;
  const drawWells = useMemo(() => drawPerYear(data, 'wells'), [data]);
  const drawRecords = useMemo(() => drawPerYear(data, 'records'), [data]);
  const note = <p className="muted chart-note">{undatedNote(data)}</p>;
  return (
    <>
      <Chart
        title="Breaches per year"
        summary={`Wells by breach year, ${span}: the most in ${busiest('wells').year} (${plural(busiest('wells').wells, 'well', 'wells')}). ${undatedNote(data)}`}
        table={{ head: ['Year', 'Wells'], rows: data.years.map((y) => [String(y.year), formatRecords(y.wells)]) }}
        draw={drawWells}
        actions={note}
        testId="chart-breaches-per-year"
      />
      <Chart
        title="Records per year"
        summary={`Records of the wells breached each year, ${span}: the most in ${busiest('records').year} (${plural(busiest('records').records, 'record', 'records')}).`}
        table={{ head: ['Year', 'Records'], rows: data.years.map((y) => [String(y.year), formatRecords(y.records)]) }}
        draw={drawRecords}
        actions={note}
        testId="chart-records-per-year"
      />
    </>
  );
}

/** A name cut to `max` characters with an ellipsis (the full name is in the table). */
const cut = (name: string, max: number) => (name.length > max ? `${name.slice(0, max - 1)}…` : name);

function LargestChart({ data }: { data: Numbers }) {
  const draw = useCallback(
    (Plot: PlotModule, width: number, colors: ThemeColors) => {
      const marginLeft = Math.min(180, Math.round(width * 0.38));
      const names = data.largest.map((w, i) => `${i + 1}. ${cut(w.name, Math.floor((marginLeft - 14) / 7) - 3)}`);
      const rows = data.largest.map((w, i) => ({ label: names[i]!, records: w.records }));
      return Plot.plot({
        ...frame(width, colors),
        height: 40 + rows.length * 26,
        marginLeft,
        marginRight: 16,
        x: { label: 'Records', grid: true, tickFormat: compact, ticks: Math.max(2, Math.floor(width / 110)) },
        y: { label: null, domain: names },
        marks: [Plot.barX(rows, { y: 'label', x: 'records', fill: colors.accent, insetTop: 3, insetBottom: 3 }), Plot.ruleX([0], { stroke: colors.border })],
      });
    },
    [data],
  );
  const top = data.largest[0]!;
  return (
    <Chart
      title="Largest wells"
      summary={`The ${data.largest.length} largest wells by records; the largest is ${top.name} with ${plural(top.records, 'record', 'records')}.`}
      table={{ head: ['Well', 'Records', 'Breach date'], rows: data.largest.map((w) => [w.name, formatRecords(w.records), formatWellDate(w.date)]) }}
      draw={draw}
      testId="chart-largest-wells"
    />
  );
}

/** The password exposure kinds, in the order of the stacked bar. */
const PASSWORD_KINDS = [
  { key: 'plain', label: 'Plain text only' },
  { key: 'both', label: 'Plain text and hashes' },
  { key: 'hashed', label: 'Hashes only' },
  { key: 'neither', label: 'No passwords' },
] as const;

const percent = (part: number, whole: number) => `${whole === 0 ? 0 : Math.round((part / whole) * 100)}%`;

function PasswordsChart({ data }: { data: Numbers }) {
  const total = data.total.wells;
  const rows = useMemo(() => PASSWORD_KINDS.map((kind) => ({ kind: kind.label, wells: data.passwords[kind.key] })), [data]);
  const draw = useCallback(
    (Plot: PlotModule, width: number, colors: ThemeColors) =>
      Plot.plot({
        ...frame(width, colors),
        height: 90,
        marginLeft: 8,
        marginRight: 16,
        x: { label: 'Share of wells', percent: true, grid: false, ticks: 5, tickFormat: (v: number) => `${v}%` },
        y: { axis: null },
        color: { domain: rows.map((r) => r.kind), range: [colors.danger, colors.warning, colors.accent, colors.muted] },
        marks: [
          Plot.barX(rows, Plot.stackX({ x: 'wells', fill: 'kind', offset: 'normalize', stroke: colors.surface, strokeWidth: 1 })),
        ],
      }),
    [rows],
  );
  const exposing = data.passwords.plain + data.passwords.both;
  const legend = (
    <ul className="chart-legend" aria-hidden="true">
      {rows.map((row, i) => (
        <li key={row.kind}>
          <span className={`chart-swatch chart-swatch-${i}`} />
          {row.kind}: {percent(row.wells, total)}
        </li>
      ))}
    </ul>
  );
  return (
    <Chart
      title="Passwords exposed"
      summary={`${percent(exposing, total)} of the ${plural(total, 'well', 'wells')} expose passwords in plain text (${formatRecords(exposing)}), ${percent(data.passwords.hashed, total)} hashes only (${formatRecords(data.passwords.hashed)}), ${percent(data.passwords.neither, total)} no passwords (${formatRecords(data.passwords.neither)}).`}
      table={{ head: ['Passwords', 'Wells', 'Share'], rows: rows.map((r) => [r.kind, formatRecords(r.wells), percent(r.wells, total)]) }}
      draw={draw}
      actions={legend}
      testId="chart-passwords"
    />
  );
}

/** The charts section of the Data Wells page; nothing while loading, on a failure, or for an empty catalogue. */
export function CatalogueCharts() {
  const { data: stable } = useCatalogueCharts();
  if (!stable || stable.total.wells === 0) return null;
  return (
    <section className="wells-charts" aria-labelledby="wells-charts-title" data-testid="catalogue-charts">
      <h2 id="wells-charts-title" className="wells-charts-title">
        The catalogue in charts
      </h2>
      <div className="wells-charts-grid">
        {stable.years.length > 0 ? <PerYearCharts data={stable} /> : <p className="muted">No well has a breach date yet, so there is no chart per year.</p>}
        <LargestChart data={stable} />
        <PasswordsChart data={stable} />
      </div>
    </section>
  );
}
