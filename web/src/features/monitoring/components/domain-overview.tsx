/**
 * A verified domain's overview on the monitoring screen (docs/monitoring.md "Domain
 * overview"): its addresses' matches per data well over time (the search screen's timeline
 * drawing), how many distinct addresses are exposed, the kinds of data with the wells and
 * records exposing each, and the same numbers as the server's CSV.
 */
import { useCallback, useState } from 'react';
import useSWR from 'swr';
import { Chart, type ChartTable, type PlotModule } from '@/components/chart/chart';
import type { ThemeColors } from '@/components/chart/theme-colors';
import { drawWellTimeline } from '@/features/search';
import { toast } from '@/lib/toast-store';
import { downloadOverviewCsv, getDomainOverview, overviewKey, type DomainOverview as Overview } from '../api/domain-overview-api';
import { refusalMessage } from '../lib/refusal';
import './domain-overview.css';

const numbers = new Intl.NumberFormat('en-US');

/** The main facts in words. */
export function overviewSummary(o: Overview): string {
  const wells = o.wells.length + o.undated.length;
  if (wells === 0) return `No data well holds an address of ${o.domain}.`;
  const addresses = `${numbers.format(o.distinct_addresses)} distinct address${o.distinct_addresses === 1 ? '' : 'es'}`;
  const parts = [`${numbers.format(o.total)} records in ${numbers.format(wells)} data well${wells === 1 ? '' : 's'} expose ${addresses} of ${o.domain}.`];
  if (o.wells.length > 1) parts.push(`Breaches from ${o.wells[0]!.date!.slice(0, 4)} to ${o.wells.at(-1)!.date!.slice(0, 4)}.`);
  if (o.undated.length) parts.push(`${numbers.format(o.undated.length)} well${o.undated.length === 1 ? ' has' : 's have'} no breach date.`);
  const top = o.data_kinds.slice(0, 3).map((k) => k.kind);
  if (top.length) parts.push(`Most exposed data: ${top.join(', ')}.`);
  return parts.join(' ');
}

function OverviewBody({ overview }: { overview: Overview }) {
  const [downloading, setDownloading] = useState(false);
  const draw = useCallback((Plot: PlotModule, width: number, colors: ThemeColors) => drawWellTimeline(Plot, width, colors, overview.wells), [overview]);
  const all = [...overview.wells, ...overview.undated];
  const table: ChartTable = {
    head: ['Data well', 'Breach date', 'Matching records', 'Data exposed'],
    rows: all.map((w) => [w.name, w.date ?? 'Unknown', numbers.format(w.records), w.data_types.join(', ') || '—']),
  };
  const download = async () => {
    setDownloading(true);
    try {
      await downloadOverviewCsv(overview.domain);
    } catch (cause) {
      toast.error(refusalMessage(cause) ?? 'The CSV could not be downloaded. Try again later.');
    } finally {
      setDownloading(false);
    }
  };
  const csvButton = (
    <button type="button" className="button button-secondary button-small" disabled={downloading} onClick={() => void download()} data-testid="overview-csv">
      Download CSV
    </button>
  );
  return (
    <>
      <dl className="overview-numbers" data-testid="overview-numbers">
        <div>
          <dt>Distinct addresses exposed</dt>
          <dd data-testid="overview-addresses">{numbers.format(overview.distinct_addresses)}</dd>
        </div>
        <div>
          <dt>Matching records</dt>
          <dd data-testid="overview-records">{numbers.format(overview.total)}</dd>
        </div>
        <div>
          <dt>Data wells</dt>
          <dd data-testid="overview-wells">{numbers.format(all.length)}</dd>
        </div>
      </dl>
      {overview.wells.length > 0 ? (
        <Chart title={`Matches per data well over time: ${overview.domain}`} level={4} summary={overviewSummary(overview)} table={table} draw={draw} actions={csvButton} testId="overview-chart" />
      ) : (
        <div className="overview-plain">
          <p className="muted">{overviewSummary(overview)}</p>
          {csvButton}
        </div>
      )}
      {overview.undated.length > 0 && (
        <div data-testid="overview-undated">
          <h4>Wells without a breach date</h4>
          <ul>
            {overview.undated.map((w) => (
              <li key={w.name}>
                {w.name} <span className="muted">· {numbers.format(w.records)} record{w.records === 1 ? '' : 's'}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {overview.data_kinds.length > 0 && (
        <table className="chart-table overview-kinds" data-testid="overview-kinds">
          <caption>Kinds of data exposed</caption>
          <thead>
            <tr>
              <th scope="col">Data</th>
              <th scope="col">Wells</th>
              <th scope="col">Records</th>
            </tr>
          </thead>
          <tbody>
            {overview.data_kinds.map((k) => (
              <tr key={k.kind}>
                <th scope="row">{k.kind}</th>
                <td>{numbers.format(k.wells)}</td>
                <td>{numbers.format(k.records)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** The overview of one verified domain, loaded once per visit (each load is one counted search). */
export function DomainOverview({ domain }: { domain: string }) {
  const { data, error, isLoading } = useSWR(overviewKey(domain), () => getDomainOverview(domain), {
    revalidateOnFocus: false,
    revalidateOnReconnect: false,
    shouldRetryOnError: false,
  });
  return (
    <section className="domain-overview" aria-label={`Domain overview of ${domain}`} data-testid="domain-overview">
      <h4 className="domain-overview-title">Domain overview</h4>
      {data ? (
        <OverviewBody overview={data} />
      ) : error ? (
        <p className="load-failed-inline">{refusalMessage(error) ?? 'The overview could not be loaded. Try again later.'}</p>
      ) : isLoading ? (
        <p className="muted" aria-busy="true">
          Loading the overview…
        </p>
      ) : null}
    </section>
  );
}
