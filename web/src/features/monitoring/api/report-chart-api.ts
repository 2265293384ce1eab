/** The reports screen's chart: matches per UTC day over the last 90 days, in one request (docs/charts.md). */
import useSWR from 'swr';
import type { ReportChart } from '@common/report-chart';
import { api } from '@/lib/api';
import { useSession } from '@/lib/session';

export type { ReportChart };

export function getReportChart() {
  return api.get<ReportChart>('/monitoring/report-chart');
}

/** The chart's numbers; a failure leaves the chart out quietly (the list stays). */
export function useReportChart() {
  const { token } = useSession();
  return useSWR(token ? '/monitoring/report-chart' : null, getReportChart, { revalidateOnFocus: false });
}
