/**
 * CSV export of a monitoring report: one row per entry, led by the task it
 * matched, list values flattened with indexes from 0 (email_0, email_1, …), named from the
 * breach (report) id and a timestamp. Cells are cleaned by the search export's rules
 * (formulas neutralised), so the two exports share one implementation.
 */
import { downloadCsv, toCsv } from '../../search';
import type { SearchRecord } from '../../search';
import type { Report } from '../api/monitoring-api';

export function reportRows(report: Report): SearchRecord[] {
  return report.records.flatMap((record) =>
    record.data.map((entry) => ({ task_type: record.task_type, task_value: record.task_value, ...entry }) as SearchRecord),
  );
}

export function reportCsv(report: Report): string {
  return toCsv(reportRows(report), { firstIndex: 0 });
}

/** "breach-42-2026-11-23T10-15-00.csv": the id kept to safe characters, local time. */
export function reportCsvName(id: string, now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}-${pad(now.getMinutes())}-${pad(now.getSeconds())}`;
  return `breach-${id.replace(/[^A-Za-z0-9_-]/g, '') || 'report'}-${stamp}.csv`;
}

export function downloadReportCsv(report: Report): string {
  const name = reportCsvName(report.id);
  downloadCsv(reportRows(report), name, { firstIndex: 0 });
  return name;
}
