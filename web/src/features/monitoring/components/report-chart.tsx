/**
 * Matches per day of the account's monitoring reports over the last 90 UTC days
 * (docs/charts.md), drawn above the reports list from one GET /monitoring/report-chart.
 */
import { useCallback } from 'react';
import { Chart, type PlotModule } from '@/components/chart/chart';
import type { ThemeColors } from '@/components/chart/theme-colors';
import { useReportChart, type ReportChart as Numbers } from '../api/report-chart-api';

const numberFormat = new Intl.NumberFormat('en-US');
const dayFormat = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
/** Axis numbers: 0, 500, 5K, 12M. */
const compactFormat = new Intl.NumberFormat('en-US', { notation: 'compact' });
const compact = (n: number) => compactFormat.format(n);
/** "2026-12-06" → "Dec 6, 2026" (a UTC day). */
const dayText = (day: string) => dayFormat.format(new Date(`${day}T00:00:00Z`));
const plural = (n: number, one: string, many: string) => `${numberFormat.format(n)} ${n === 1 ? one : many}`;

function summaryOf(data: Numbers): string {
  const first = data.days[0]!.day;
  const last = data.days.at(-1)!.day;
  const period = `from ${dayText(first)} to ${dayText(last)} (UTC days)`;
  if (data.total_reports === 0) return `No matches in the last ${data.days.length} days, ${period}.`;
  const busiest = data.days.reduce((best, d) => (d.matches > best.matches ? d : best));
  const active = data.days.filter((d) => d.reports > 0).length;
  return (
    `${plural(data.total_matches, 'match', 'matches')} in ${plural(data.total_reports, 'report', 'reports')} over the last ${data.days.length} days, ${period}, ` +
    `on ${plural(active, 'day', 'days')}; the most on ${dayText(busiest.day)} (${plural(busiest.matches, 'match', 'matches')}).`
  );
}

function ChartOf({ data }: { data: Numbers }) {
  const draw = useCallback(
    (Plot: PlotModule, width: number, colors: ThemeColors) =>
      Plot.plot({
        width,
        height: 200,
        marginLeft: 44,
        style: { color: colors.text, background: 'transparent', fontSize: '12px', overflow: 'visible' },
        x: { type: 'utc', label: null, ticks: Math.max(2, Math.min(6, Math.floor(width / 110))) },
        y: { label: 'Matches', grid: true, tickFormat: compact, ticks: Math.min(5, Math.max(1, ...data.days.map((d) => d.matches))) },
        marks: [
          Plot.rectY(data.days, { x: (d: Numbers['days'][number]) => new Date(`${d.day}T00:00:00Z`), y: 'matches', interval: 'day', fill: colors.accent, insetLeft: 0.5, insetRight: 0.5 }),
          Plot.ruleY([0], { stroke: colors.border }),
        ],
      }),
    [data],
  );
  return (
    <Chart
      title="Matches per day"
      level={2}
      summary={summaryOf(data)}
      table={{ head: ['Day (UTC)', 'Matches', 'Reports'], rows: data.days.map((d) => [dayText(d.day), numberFormat.format(d.matches), numberFormat.format(d.reports)]) }}
      draw={draw}
      testId="chart-report-matches"
    />
  );
}

/** The chart, once its numbers are here; nothing while loading or after a failure. */
export function ReportChart() {
  const { data } = useReportChart();
  return data && data.days.length > 0 ? <ChartOf data={data} /> : null;
}
