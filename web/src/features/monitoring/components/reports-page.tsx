import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useLocation, useRoute } from 'wouter';
import { REPORTS_PAGE_SIZE } from '@common/monitoring-rules';
import { CloseIcon, DownloadIcon, MenuIcon, RadarIcon } from '@/components/icons';
import { Paginator } from '@/components/paginator';
import { useEscape } from '@/components/use-escape';
import { usePageTitle } from '@/hooks/use-page-title';
import { formatDateTime } from '@/lib/date-time';
import { relativeTime } from '@/lib/relative-time';
import { toast } from '@/lib/toast-store';
import { displayedFields, fieldLabel, isMaskedEmail, rawRecordText, valueText } from '@/features/search';
import type { SearchRecord } from '@/features/search';
import type { Report, ReportRecord, ReportSummary } from '../api/monitoring-api';
import { useReport, useReports } from '../api/use-monitoring';
import { TASK_TITLES } from '../lib/channel-kinds';
import { downloadReportCsv } from '../lib/report-csv';
import { ReportChart } from './report-chart';
import './monitoring.css';

/**
 * /monitoring/reports and /monitoring/reports/{id}: the paged list (20 a page) beside the
 * selected report; on mobile the list is a drawer. Report entries are breach
 * data: every value is rendered as text.
 */
export function ReportsPage() {
  usePageTitle('Monitoring Reports');
  const [, params] = useRoute<{ id: string }>('/monitoring/reports/:id');
  const selectedId = params?.id ? decodeURIComponent(params.id) : null;
  const [, navigate] = useLocation();
  const [page, setPage] = useState(1);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const { data, isLoading } = useReports(page, REPORTS_PAGE_SIZE);
  const pages = data ? Math.max(1, Math.ceil(data.total_reports / REPORTS_PAGE_SIZE)) : 1;

  // Any change of report (a link, going back) closes the drawer too.
  useEffect(() => setDrawerOpen(false), [selectedId]);
  // Escape closes it, and the focus goes back to the button that opened it.
  const drawerButton = useRef<HTMLButtonElement>(null);
  const closeDrawer = useCallback(() => {
    setDrawerOpen(false);
    drawerButton.current?.focus();
  }, []);
  useEscape(drawerOpen, closeDrawer);

  return (
    <div className="page reports-page">
      <header className="page-header monitoring-header">
        <div>
          <h1>Monitoring Reports</h1>
          <p className="page-lead">One report for each new data well that matched your tasks.</p>
        </div>
        <button
          type="button"
          ref={drawerButton}
          className="button button-secondary mobile-only"
          aria-expanded={drawerOpen}
          onClick={() => setDrawerOpen(true)}
        >
          <MenuIcon width={16} height={16} />
          Reports
        </button>
      </header>

      <ReportChart />

      <div className={`reports-layout${drawerOpen ? ' drawer-open' : ''}`}>
        <div className="reports-scrim" aria-hidden="true" onClick={() => setDrawerOpen(false)} />
        <aside className="card reports-list" aria-label="Reports">
          <header className="reports-list-head">
            <h2 className="card-title">Reports</h2>
            {data && <span className="muted">{data.total_reports.toLocaleString('en-US')}</span>}
            <button type="button" className="icon-button mobile-only" aria-label="Close reports" onClick={() => setDrawerOpen(false)}>
              <CloseIcon />
            </button>
          </header>
          {!data ? (
            <p className="muted reports-empty">{isLoading ? 'Loading reports…' : 'Reports are not available right now.'}</p>
          ) : data.reports.length === 0 ? (
            <p className="muted reports-empty" data-testid="reports-empty">
              No reports to show.
            </p>
          ) : (
            <ul>
              {data.reports.map((report) => (
                <ReportItem
                  key={report.id}
                  report={report}
                  selected={report.id === selectedId}
                  onOpen={() => {
                    setDrawerOpen(false);
                    navigate(`/monitoring/reports/${encodeURIComponent(report.id)}`);
                  }}
                />
              ))}
            </ul>
          )}
          <Paginator page={page} pages={pages} onPage={setPage} />
        </aside>

        <section className="card report-overview" aria-label="Report">
          {selectedId ? (
            <ReportOverview id={selectedId} />
          ) : (
            <div className="empty-state" data-testid="report-none">
              <span className="empty-icon">
                <RadarIcon width={28} height={28} />
              </span>
              <p className="muted">No report selected.</p>
              <Link href="/monitoring/manage" className="link">
                Manage your monitoring
              </Link>
            </div>
          )}
        </section>
      </div>
    </div>
  );
}

function ReportItem({ report, selected, onOpen }: { report: ReportSummary; selected: boolean; onOpen: () => void }) {
  return (
    <li>
      <button
        type="button"
        className={`report-item${selected ? ' active' : ''}`}
        aria-current={selected ? 'page' : undefined}
        onClick={onOpen}
        data-testid="report-item"
      >
        <span className="report-item-top">
          <span className="report-item-name">{report.database_name}</span>
          <span className="report-item-count">{report.results.toLocaleString('en-US')}</span>
        </span>
        <span className="report-item-tasks">
          {report.tasks.map((task) => `${TASK_TITLES[task.key] ?? task.key}: ${task.value}`).join(' · ')}
        </span>
        <span className="report-item-date muted" title={formatDateTime(report.created)}>
          {relativeTime(report.created)}
        </span>
      </button>
    </li>
  );
}

function ReportOverview({ id }: { id: string }) {
  const { data: report, error, isLoading } = useReport(id);
  if (!report) {
    return (
      <div className="status-card">
        {isLoading && <span className="spinner" />}
        <p className="muted">{isLoading ? 'Loading report…' : error ? 'This report could not be loaded.' : 'No report selected.'}</p>
      </div>
    );
  }
  return <ReportView report={report} />;
}

function ReportView({ report }: { report: Report }) {
  const exportCsv = () => {
    try {
      downloadReportCsv(report);
    } catch {
      toast.error('Could not export CSV');
    }
  };
  return (
    <article className="report-view" data-testid="report-view">
      <header className="report-view-head">
        <div>
          <h2 data-testid="report-database">{report.database_name}</h2>
          <p className="muted">
            {formatDateTime(report.created)} · {report.results.toLocaleString('en-US')} {report.results === 1 ? 'result' : 'results'}
          </p>
        </div>
        <button type="button" className="button button-secondary button-small" onClick={exportCsv}>
          <DownloadIcon width={15} height={15} />
          Export CSV
        </button>
      </header>
      {report.records.map((record, index) => (
        <TaskRecord key={`${record.task_type}-${record.task_value}-${index}`} record={record} />
      ))}
    </article>
  );
}

function TaskRecord({ record }: { record: ReportRecord }) {
  const shown = record.data.length;
  return (
    <section className="report-task" data-testid="report-task">
      <h3>
        <span className="report-task-kind">{TASK_TITLES[record.task_type] ?? record.task_type}</span>
        <span className="report-task-value">{record.task_value}</span>
        <span className="report-task-count muted">
          {record.results_count.toLocaleString('en-US')} {record.results_count === 1 ? 'match' : 'matches'}
        </span>
      </h3>
      {record.domain_unverified ? (
        <p className="muted report-task-note" data-testid="report-domain-unverified">
          Values hidden until the domain is verified.{' '}
          <Link href="/monitoring/manage/tasks" className="link">
            Verify it on the tasks screen
          </Link>
          .
        </p>
      ) : shown < record.results_count && (
        <p className="muted report-task-note">
          Showing {shown.toLocaleString('en-US')} of {record.results_count.toLocaleString('en-US')}.
        </p>
      )}
      <ul className="report-entries">
        {record.data.map((entry, index) => (
          <ReportEntry key={entry.id ?? index} entry={entry} />
        ))}
      </ul>
    </section>
  );
}

function ReportEntry({ entry }: { entry: SearchRecord }) {
  return (
    <li className="report-entry" data-testid="report-entry">
      {entry.database_name && <p className="report-entry-source muted">{entry.database_name}</p>}
      <dl>
        {displayedFields(entry).map(({ field, values }) => (
          <div key={field}>
            <dt>{fieldLabel(field)}</dt>
            <dd>
              {values.map((value, i) => (
                <span key={i} className="report-entry-value">
                  {field === 'email' && isMaskedEmail(value) ? 'Hidden' : valueText(field, value)}
                </span>
              ))}
            </dd>
          </div>
        ))}
      </dl>
      {entry.raw_record && (
        <details className="report-raw">
          <summary>Raw record (LE ONLY)</summary>
          <pre tabIndex={0} aria-label="Raw record">{rawRecordText(entry.raw_record)}</pre>
        </details>
      )}
    </li>
  );
}
