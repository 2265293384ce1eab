/**
 * The exposure timeline above an email, username, phone or domain search's results
 * (docs/search-and-api.md "Exposure timeline"): one dot per data well holding matches, at the
 * well's breach date, sized by the matching records and labelled with the well's name; wells
 * without a date listed apart. With a search subscription, choosing a dot or a well's name in
 * the table (or the undated list) shows only that well's results.
 */
import { useCallback, useEffect, useRef } from 'react';
import { Chart, type ChartTable, type PlotModule } from '@/components/chart/chart';
import type { ThemeColors } from '@/components/chart/theme-colors';
import type { WellExposure } from '../api/timeline-api';
import { drawWellTimeline } from '../lib/well-timeline';

const numbers = new Intl.NumberFormat('en-US');
const monthYear = (date: string) => new Date(`${date}T00:00:00Z`).toLocaleDateString('en-US', { year: 'numeric', month: 'short', timeZone: 'UTC' });
const records = (n: number) => `${numbers.format(n)} record${n === 1 ? '' : 's'}`;

/** The main facts in words: wells, records, the span of dates, the largest well, the undated ones. */
export function timelineSummary(data: WellExposure): string {
  const count = data.wells.length + data.undated.length;
  if (count === 0) return 'No data well holds a record matching this search.';
  const parts = [`${numbers.format(count)} data well${count === 1 ? '' : 's'} hold${count === 1 ? 's' : ''} ${records(data.total)} matching this search.`];
  if (data.wells.length === 1) parts.push(`${data.wells[0]!.name} was breached in ${monthYear(data.wells[0]!.date!)}.`);
  else if (data.wells.length > 1) parts.push(`Breaches from ${monthYear(data.wells[0]!.date!)} to ${monthYear(data.wells.at(-1)!.date!)}.`);
  const largest = [...data.wells, ...data.undated].sort((a, b) => b.records - a.records)[0]!;
  if (count > 1) parts.push(`Most records: ${largest.name} (${numbers.format(largest.records)}).`);
  if (data.undated.length) parts.push(`${numbers.format(data.undated.length)} well${data.undated.length === 1 ? ' has' : 's have'} no breach date.`);
  return parts.join(' ');
}

/** A well's name: a button that filters the results to it when filtering is allowed, else text. */
function WellName({ name, onWell, testId }: { name: string; onWell?: (name: string) => void; testId: string }) {
  if (!onWell) return <>{name}</>;
  return (
    <button type="button" className="link-button" data-testid={testId} onClick={() => onWell(name)} aria-label={`Show only results from ${name}`}>
      {name}
    </button>
  );
}

export interface ExposureTimelineProps {
  data: WellExposure;
  /** Filters the results to a well (subscribers); without it, names are text and dots inert. */
  onWell?: (name: string) => void;
}

export function ExposureTimeline({ data, onWell }: ExposureTimelineProps) {
  // The drawing stays the same function while the data does; the latest handler is read at click time.
  const handler = useRef(onWell);
  useEffect(() => {
    handler.current = onWell;
  }, [onWell]);
  const filtering = onWell !== undefined;
  const draw = useCallback(
    (Plot: PlotModule, width: number, colors: ThemeColors) =>
      drawWellTimeline(Plot, width, colors, data.wells, filtering ? (name) => handler.current?.(name) : undefined),
    [data, filtering],
  );
  const all = [...data.wells, ...data.undated];
  const table: ChartTable = {
    head: ['Data well', 'Breach date', 'Matching records', 'Data exposed'],
    rows: all.map((w) => [
      <WellName key="name" name={w.name} onWell={onWell} testId="timeline-well-button" />,
      w.date ?? 'Unknown',
      numbers.format(w.records),
      w.data_types.join(', ') || '—',
    ]),
  };
  if (all.length === 0) return null;
  return (
    <section className="exposure-timeline" aria-label="Exposure timeline" data-testid="exposure-timeline">
      {data.wells.length > 0 ? (
        <Chart title="Exposure timeline" level={2} summary={timelineSummary(data)} table={table} draw={draw} testId="timeline-chart" />
      ) : (
        <p className="muted" data-testid="timeline-summary">
          {timelineSummary(data)}
        </p>
      )}
      {data.undated.length > 0 && (
        <div className="timeline-undated card" data-testid="timeline-undated">
          <h3>Wells without a breach date</h3>
          <ul>
            {data.undated.map((w) => (
              <li key={w.name}>
                <WellName name={w.name} onWell={onWell} testId="undated-well-button" />
                <span className="muted">
                  {' '}
                  · {records(w.records)}
                  {w.data_types.length ? ` · ${w.data_types.join(', ')}` : ''}
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {data.wells.length > 0 && (
        <div className="timeline-kinds card" data-testid="timeline-kinds">
          <h3>Data exposed in each well</h3>
          <ul>
            {data.wells.map((w) => (
              <li key={w.name}>
                <strong>{w.name}</strong> <span className="muted">({w.date})</span>: {w.data_types.join(', ') || 'no data types recorded'}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
