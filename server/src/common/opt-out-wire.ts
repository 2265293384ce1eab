/** The opt-out preview's answer (POST /privacy/opt-out/preview), shared by the server and the dashboard. */

/** What an opt-out link covers: the records holding its address, per data well, without values. */
export interface OptOutHoldings {
  email: string;
  /** Records holding the address (every one, even past OPT_OUT_MAX_RECORDS). */
  total: number;
  /** Per data well, of the first OPT_OUT_MAX_RECORDS records, most first. */
  wells: { name: string; records: number }[];
  /** More records than `wells` counts. */
  truncated: boolean;
  /** The address is opted out (its records are hidden, so `total` is 0); since when (ISO 8601). */
  opted_out: boolean;
  opted_out_since: string | null;
}
