/** The monitoring reports chart's wire contract (GET /monitoring/report-chart, docs/charts.md). */

/** How many days the chart covers: today (UTC) and the 89 before it. */
export const REPORT_CHART_DAYS = 90;

/** One UTC day: the matches of the reports written that day, and how many reports. */
export interface ReportChartDay {
  /** YYYY-MM-DD (UTC). */
  day: string;
  /** Matching records over the day's reports (a report's `results`, every task counted). */
  matches: number;
  reports: number;
}

export interface ReportChart {
  /** Every day of the period, oldest first; a day without a report is 0. */
  days: ReportChartDay[];
  total_matches: number;
  total_reports: number;
}
