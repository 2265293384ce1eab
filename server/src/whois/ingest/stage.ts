/**
 * Where parsed rows go: buffered as COPY text, copied into temporary staging tables
 * (pg-copy-streams), then merged into the store by one INSERT … SELECT … ON CONFLICT per
 * table and batch:
 * - pdns: first_seen the least, last_seen the greatest, count the sum;
 * - subdomains: every owner name (and MX/NS/CNAME target) of pdns rows and every name
 *   given alone, first/last seen merged the same way, the source added to `sources`; the
 *   names of a batch are merged here first (one staged row per name);
 * - whois_snapshots: one row per (domain, content), the observation window widened, then
 *   the current snapshot of each domain of the batch brought up to date (snapshots.ts).
 * pdns and snapshots are merged on the caller's connection, in its transaction; the names
 * on a second connection (`namesClient`, in a transaction of its own that the caller
 * commits first, then its own: a failure in between leaves names seen a second time, which
 * importing the file again merges to the same values), so the two merges run side by side.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import pgCopy from 'pg-copy-streams';
import type { Database } from '../../db/schema';
import { refreshCurrent, type SnapshotRow } from '../snapshots-repository';
import { reverseName } from '../names';

/** Rows (or bytes of COPY text) per batch: bounded memory, few statements. */
export const BATCH_ROWS = 100_000;
export const BATCH_BYTES = 32 << 20;
/**
 * The first batch is small and each next one twice the size, up to BATCH_ROWS: PostgreSQL
 * starts merging after 12,500 rows instead of waiting while node parses a whole batch (the
 * merges then run back to back, so a wait at the start is never made up).
 */
export const FIRST_BATCH_ROWS = 12_500;
/** A name keeps at most this many sources. */
const MAX_SOURCES = 32;
/** refreshCurrent takes its domains as parameters: at most this many a call. */
const REFRESH_CHUNK = 5_000;

/** COPY text format: backslash, tab, newline and carriage return escaped; NUL (never valid in text) dropped. */
export function copyText(value: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\\\t\n\r\u0000]/.test(value) ? value.replace(/\u0000/g, '').replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!) : value;
}
function copyNullable(value: string | null): string {
  return value === null ? '\\N' : copyText(value);
}
function copyDate(value: Date | null): string {
  return value === null ? '\\N' : value.toISOString();
}

/**
 * COPY text written straight into a growing byte buffer: no string a row, so a batch in
 * flight is one object for the garbage collector, not 100,000 (BENCHMARKS.md, "Ingest").
 */
export class CopyBuffer {
  buf: Buffer;
  length = 0;

  constructor(size = 1 << 20) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Room for `n` more bytes. */
  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buf.copy(grown, 0, 0, this.length);
    this.buf = grown;
  }

  /** Bytes `start` to `end` of `from` (never this buffer). */
  bytes(from: Buffer, start: number, end: number): void {
    this.room(end - start);
    this.length += from.copy(this.buf, this.length, start, end);
  }

  byte(c: number): void {
    this.room(1);
    this.buf[this.length++] = c;
  }

  /** A value as COPY text (copyText), UTF-8. */
  text(value: string): void {
    const n = value.length;
    this.room(n);
    const buf = this.buf;
    let p = this.length;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      // ASCII without a character COPY escapes (or drops): the bytes are the characters.
      if (c >= 0x80 || c === 0x5c || c < 0x20) {
        const rest = copyText(i === 0 ? value : value.slice(i));
        this.length = p;
        this.room(rest.length * 3);
        this.length += this.buf.write(rest, this.length, 'utf8');
        return;
      }
      buf[p++] = c;
    }
    this.length = p;
  }

  /** A host name (ASCII letters, digits, `-`, `_`, `.`: hostOrNull) reversed by label, as reverseName. */
  reversedHost(host: string): void {
    const n = host.length;
    for (let i = 0; i < n; i++) {
      const c = host.charCodeAt(i);
      if (c >= 0x80 || c === 0x5c || c < 0x20) return this.text(reverseName(host)); // never for a host name
    }
    this.room(n);
    const buf = this.buf;
    let p = this.length;
    let end = n;
    for (let i = n - 1; i >= -1; i--) {
      if (i === -1 || host.charCodeAt(i) === 0x2e) {
        for (let j = i + 1; j < end; j++) buf[p++] = host.charCodeAt(j);
        if (i >= 0) buf[p++] = 0x2e;
        end = i;
      }
    }
    this.length = p;
  }

  /** A number as `${value}` writes it. */
  number(value: number): void {
    if (!Number.isInteger(value) || value < 0 || value > Number.MAX_SAFE_INTEGER) {
      this.text(String(value));
      return;
    }
    let digits = 1;
    for (let v = value; v >= 10; v = Math.floor(v / 10)) digits++;
    this.room(digits);
    let p = this.length + digits;
    this.length = p;
    let v = value;
    do {
      const q = Math.floor(v / 10);
      this.buf[--p] = 0x30 + (v - q * 10);
      v = q;
    } while (v > 0);
  }

  /** The bytes written, in chunks of at most 1 MiB (one COPY message each). */
  *chunks(): Generator<Buffer> {
    for (let i = 0; i < this.length; i += 1 << 20) yield this.buf.subarray(i, Math.min(this.length, i + (1 << 20)));
  }

  clear(): void {
    this.length = 0;
  }
}

/**
 * The names seen in a batch, one entry a name (by the name as written, not reversed: the
 * same equality), first seen the least, last seen the greatest.
 */
class NamesSeen {
  private readonly slot = new Map<string, number>();
  private first: number[] = [];
  private last: number[] = [];
  // The last name added by each caller (`via`) and its slot: consecutive rows often share
  // their owner (half the rows of a passive DNS export), a compare instead of a lookup.
  private readonly recentHost: string[] = ['', ''];
  private readonly recentSlot: number[] = [0, 0];

  get size(): number {
    return this.slot.size;
  }

  add(host: string, first: number, last: number, via: 0 | 1 = 0): void {
    let i: number | undefined = this.recentHost[via] === host ? this.recentSlot[via]! : this.slot.get(host);
    if (i === undefined) {
      i = this.first.length;
      this.slot.set(host, i);
      this.first.push(first);
      this.last.push(last);
      this.recentHost[via] = host;
      this.recentSlot[via] = i;
      return;
    }
    this.recentHost[via] = host;
    this.recentSlot[via] = i;
    if (first < this.first[i]!) this.first[i] = first;
    if (last > this.last[i]!) this.last[i] = last;
  }

  /** COPY text of whois_stage_names (name_rev, first_seen, last_seen), then empty. */
  writeTo(out: CopyBuffer): void {
    for (const [host, i] of this.slot) {
      out.reversedHost(host);
      out.byte(9);
      out.number(this.first[i]!);
      out.byte(9);
      out.number(this.last[i]!);
      out.byte(10);
    }
    this.slot.clear();
    this.first = [];
    this.last = [];
    this.recentHost.fill('');
  }
}

/** The end of a pdns row's COPY text after its key: tab, first seen, last seen, count, newline. */
function writeSeen(out: CopyBuffer, first: number, last: number, count: number): void {
  out.byte(9);
  out.number(first);
  out.byte(9);
  out.number(last);
  out.byte(9);
  out.number(count);
  out.byte(10);
}

/**
 * The most bytes writeSeen writes for a row (times below 2100: 10 digits; a count up to
 * 1e12 from the parsers, 16 digits at most below 2^53): the keys buffer holds no tails, so
 * the batch's byte bound counts this much a row.
 */
const PDNS_TAIL_BYTES = 40;

/**
 * Where each pdns row's key lies in the keys buffer, and its times and count, so that the
 * batch can be staged grouped by the table's key and in its order: PostgreSQL then
 * neither sorts nor groups, and its insert walks the unique index in order (the pdns
 * merge is the ingest's critical path; docs/whois-benchmark.md "Ingest"). The buffer holds
 * only the keys: a row's tail (first seen, last seen, count) is written once, when the batch
 * is staged, rather than copied as the rows are grouped.
 */
class PdnsRows {
  /** Offsets of each row: start and end of its key (rrtype, rdata, rrname_rev: the index's order). */
  start: number[] = [];
  keyEnd: number[] = [];
  first: number[] = [];
  last: number[] = [];
  count: number[] = [];

  get size(): number {
    return this.start.length;
  }

  clear(): void {
    this.start = [];
    this.keyEnd = [];
    this.first = [];
    this.last = [];
    this.count = [];
  }

  /**
   * Writes the rows (keys in `from`) to `out` as COPY text, one a key (first seen the
   * least, last seen the greatest, count the sum), ordered as the index (rrtype, rdata,
   * rrname_rev) up to COPY escapes (order only matters for speed). Keys are compared as
   * their COPY text: the same equality as the stored values. False when a sum of counts
   * would not be exact in a double: `out` then holds every row as it came (writeAll).
   */
  groupInto(from: CopyBuffer, out: CopyBuffer): boolean {
    const n = this.size;
    const buf = from.buf;
    // The key's bytes as a latin1 string (tabs between the columns): byte order.
    const keys = new Array<string>(n);
    for (let i = 0; i < n; i++) keys[i] = buf.toString('latin1', this.start[i]!, this.keyEnd[i]!);
    const order = new Array<number>(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : a - b));
    for (let g = 0; g < n; ) {
      const row = order[g]!;
      let first = this.first[row]!;
      let last = this.last[row]!;
      let count = this.count[row]!;
      let next = g + 1;
      for (; next < n && keys[order[next]!] === keys[row]; next++) {
        const other = order[next]!;
        if (this.first[other]! < first) first = this.first[other]!;
        if (this.last[other]! > last) last = this.last[other]!;
        count += this.count[other]!;
      }
      if (count > Number.MAX_SAFE_INTEGER) {
        this.writeAll(from, out);
        return false;
      }
      out.bytes(buf, this.start[row]!, this.keyEnd[row]!);
      writeSeen(out, first, last, count);
      g = next;
    }
    return true;
  }

  /** Every row as it came (`out` emptied first). */
  private writeAll(from: CopyBuffer, out: CopyBuffer): void {
    out.clear();
    for (let i = 0; i < this.size; i++) {
      out.bytes(from.buf, this.start[i]!, this.keyEnd[i]!);
      writeSeen(out, this.first[i]!, this.last[i]!, this.count[i]!);
    }
  }
}

export interface StagedCounts {
  /** Rows given to the stage (before merging duplicates). */
  pdns: number;
  names: number;
  snapshots: number;
}

interface Batch {
  /** COPY text of the batch's pdns rows (PdnsRows.groupInto). */
  pdns: CopyBuffer;
  /** One staged row a key, in key order (PdnsRows.groupInto): merged without GROUP BY or ORDER BY. */
  pdnsGrouped: boolean;
  names: CopyBuffer;
  snapshots: string[];
  domains: string[];
}

export class Stage {
  /** The keys of the pdns rows of the batch being read (PdnsRows). */
  private pdns = new CopyBuffer();
  private pdnsRows = 0;
  private pdnsIndex = new PdnsRows();
  private names = new NamesSeen();
  private namesGiven = 0;
  private snapshotLines: string[] = [];
  private snapshotDomains = new Set<string>();
  private snapshotBytes = 0;
  /** COPY text buffers of batches merged, to be filled again (at most three of each exist). */
  private freePdns: CopyBuffer[] = [];
  private freeNames: CopyBuffer[] = [];
  /**
   * Each connection merges its part of the batches in order, on its own: the promise of its
   * last merge, and of the one before it (awaited before a batch is queued, so at most one
   * batch waits behind the one being merged).
   */
  private mainTail: Promise<void> = Promise.resolve();
  private mainBefore: Promise<void> = Promise.resolve();
  private namesTail: Promise<void> = Promise.resolve();
  private namesBefore: Promise<void> = Promise.resolve();
  private batchRows = FIRST_BATCH_ROWS;
  readonly counts: StagedCounts = { pdns: 0, names: 0, snapshots: 0 };

  private constructor(
    private readonly client: pg.ClientBase,
    private readonly namesClient: pg.ClientBase,
    private readonly db: Kysely<Database>,
    private readonly source: string,
  ) {}

  /**
   * Creates the staging tables (dropped at the end of the transactions): pdns and snapshots
   * on `client`, names on `namesClient` (the same client when not given), each inside a
   * transaction the caller began.
   */
  static async open(client: pg.ClientBase, db: Kysely<Database>, source: string, namesClient: pg.ClientBase = client): Promise<Stage> {
    for (const c of namesClient === client ? [client] : [client, namesClient]) {
      // Sorting and grouping a batch in memory; a lost commit on a crash only means importing the file again.
      await c.query(`set local work_mem = '128MB'`);
      await c.query('set local synchronous_commit = off');
    }
    await client.query(`
      create temp table whois_stage_pdns (
        rrname_rev text collate "C" not null, rrtype text collate "C" not null, rdata text collate "C" not null,
        first_seen float8 not null, last_seen float8 not null, count bigint not null
      ) on commit drop`);
    await namesClient.query(`create temp table whois_stage_names (name_rev text collate "C" not null, first_seen float8 not null, last_seen float8 not null) on commit drop`);
    await client.query(`
      create temp table whois_stage_snapshots (
        domain text not null, observed_at timestamptz not null, source text not null, record text not null,
        registrar_name text, created_date timestamptz, updated_date timestamptz, expires_date timestamptz,
        search_text text not null, content_sha256 bytea not null
      ) on commit drop`);
    return new Stage(client, namesClient, db, source);
  }

  /**
   * A passive DNS row: `host` as hostOrNull gives it (stored reversed), times in epoch
   * seconds. `target`: the MX/NS/CNAME target host, also kept as a name seen; the owner is
   * always one.
   */
  addPdnsHost(host: string, rrtype: string, rdata: string, first: number, last: number, count: number, target: string | null): void {
    const out = this.pdns;
    const index = this.pdnsIndex;
    // The key first, in the index's column order (PdnsRows.groupInto sorts by it).
    index.start.push(out.length);
    out.text(rrtype);
    out.byte(9);
    out.text(rdata);
    out.byte(9);
    out.reversedHost(host);
    index.keyEnd.push(out.length);
    index.first.push(first);
    index.last.push(last);
    index.count.push(count);
    this.names.add(host, first, last);
    if (target !== null) this.names.add(target, first, last, 1);
    this.pdnsRows++;
    this.counts.pdns++;
  }

  /** addPdnsHost with the names reversed (names.ts). */
  addPdns(rrnameRev: string, rrtype: string, rdata: string, first: number, last: number, count: number, targetRev: string | null): void {
    this.addPdnsHost(reverseName(rrnameRev), rrtype, rdata, first, last, count, targetRev === null ? null : reverseName(targetRev));
  }

  /** A host name seen from `first` to `last` (epoch seconds), reversed. */
  addName(nameRev: string, first: number, last: number): void {
    this.names.add(reverseName(nameRev), first, last);
    this.namesGiven++;
    this.counts.names++;
  }

  addSnapshot(row: SnapshotRow): void {
    const line =
      [
        copyText(row.domain),
        row.observed_at.toISOString(),
        copyText(row.source),
        copyText(row.record),
        copyNullable(row.registrar_name),
        copyDate(row.created_date),
        copyDate(row.updated_date),
        copyDate(row.expires_date),
        copyText(row.search_text),
        `\\\\x${row.content_sha256.toString('hex')}`,
      ].join('\t') + '\n';
    this.snapshotLines.push(line);
    this.snapshotDomains.add(row.domain);
    this.snapshotBytes += line.length;
    this.counts.snapshots++;
  }

  get full(): boolean {
    return this.pdnsRows + this.namesGiven + this.snapshotLines.length >= this.batchRows || this.pdns.length + this.pdnsRows * PDNS_TAIL_BYTES + this.snapshotBytes >= BATCH_BYTES;
  }

  /**
   * Queues what is buffered for merging, on each connection after its part of the batches
   * before: node reads and groups the next batch while PostgreSQL merges, and a connection
   * done with a batch starts on the next one without waiting for the other connection or
   * for node, so neither side idles (docs/whois-benchmark.md "Ingest"). Waits only while a batch is already waiting on
   * a connection, so at most three batches are in memory (one merging, one waiting, one
   * being read). A failure surfaces at a later flush or at finish.
   */
  async flush(): Promise<void> {
    // The batch is grouped and written while the batches before are still being merged.
    const names = this.freeNames.pop() ?? new CopyBuffer();
    names.clear();
    this.names.writeTo(names);
    const pdns = this.freePdns.pop() ?? new CopyBuffer();
    pdns.clear();
    const isGrouped = this.pdnsIndex.groupInto(this.pdns, pdns);
    this.pdnsIndex.clear();
    this.pdns.clear();
    const batch: Batch = { pdns, pdnsGrouped: isGrouped, names, snapshots: this.snapshotLines, domains: [...this.snapshotDomains] };
    this.pdnsRows = 0;
    this.namesGiven = 0;
    this.snapshotLines = [];
    this.snapshotDomains = new Set();
    this.snapshotBytes = 0;
    this.batchRows = Math.min(this.batchRows * 2, BATCH_ROWS);
    await this.settled([this.mainBefore, this.namesBefore]);
    // One connection for both (no namesClient): its merges run one after the other.
    const shared = this.namesClient === this.client;
    this.mainBefore = this.mainTail;
    this.mainTail = (shared ? this.namesTail : this.mainTail).then(async () => {
      await this.mergeMain(batch);
      this.freePdns.push(pdns);
    });
    this.mainTail.catch(() => {}); // observed by a later settled()
    this.namesBefore = this.namesTail;
    this.namesTail = (shared ? this.mainTail : this.namesTail).then(async () => {
      await this.mergeNames(names);
      this.freeNames.push(names);
    });
    this.namesTail.catch(() => {});
  }

  /** Merges what is left and waits until everything is in the store. */
  async finish(): Promise<void> {
    await this.flush();
    await this.settled([this.mainTail, this.namesTail]);
  }

  /**
   * Waits for `merges`; when one failed, waits until neither connection is merging (each is
   * then idle, ready for the rollback) and throws its error.
   */
  private async settled(merges: Promise<void>[]): Promise<void> {
    const failed = (await Promise.allSettled(merges)).find((r) => r.status === 'rejected');
    if (failed === undefined) return;
    await Promise.allSettled([this.mainTail, this.namesTail]);
    throw failed.reason;
  }

  /** pdns rows and WHOIS records, on the caller's connection. */
  private async mergeMain(batch: Batch): Promise<void> {
    const { pdns, snapshots, domains } = batch;
    if (pdns.length > 0) {
      await this.copy(this.client, 'whois_stage_pdns (rrtype, rdata, rrname_rev, first_seen, last_seen, count)', pdns.chunks());
      // The staging tables are never analysed, so the planner expects 200 groups and picks a
      // hash aggregate, then sorts its output in key order for the insert. One sort that
      // groups as it goes does the same work once, not twice, with far less CPU
      // (docs/whois-benchmark.md). Only this statement: the snapshot merge keeps its plan.
      if (batch.pdnsGrouped) {
        await this.mergePdnsGrouped();
      } else {
        await this.client.query('set local enable_hashagg = off');
        await this.mergePdns();
        await this.client.query('set local enable_hashagg = on');
      }
      await this.client.query('truncate whois_stage_pdns');
    }
    if (snapshots.length > 0) {
      await this.copy(
        this.client,
        'whois_stage_snapshots (domain, observed_at, source, record, registrar_name, created_date, updated_date, expires_date, search_text, content_sha256)',
        lineChunks(snapshots),
      );
      await this.mergeSnapshots(domains);
      await this.client.query('truncate whois_stage_snapshots');
    }
  }

  private async copy(client: pg.ClientBase, target: string, chunks: Iterable<string | Buffer>): Promise<void> {
    const stream = client.query(pgCopy.from(`copy ${target} from stdin`));
    await pipeline(Readable.from(chunks), stream);
  }

  // Rows go in near key order: few index pages touched per batch, where rows in no order
  // would cost the insert much more CPU. Sorted by answer first, not by type: rdata's first
  // bytes tell rows apart, so the sort compares abbreviated keys, where a leading rrtype ('A'
  // in most rows) makes it compare every column in full, at twice the cost; answers of
  // different types rarely share a prefix, so the order stays close to (rrtype, rdata,
  // rrname_rev).
  private async mergePdns(): Promise<void> {
    await this.client.query(
      `insert into pdns as p (rrname_rev, rrtype, rdata, first_seen, last_seen, count, source)
       select rrname_rev, rrtype, rdata, to_timestamp(min(first_seen)), to_timestamp(max(last_seen)), sum(count)::bigint, $1
       from whois_stage_pdns group by rdata, rrname_rev, rrtype order by rdata, rrname_rev, rrtype
       on conflict (rrtype, rdata, rrname_rev) do update set
         first_seen = least(p.first_seen, excluded.first_seen),
         last_seen = greatest(p.last_seen, excluded.last_seen),
         count = p.count + excluded.count`,
      [this.source],
    );
  }

  // Staged one row a key in the index's order (PdnsRows.groupInto): read as staged.
  private async mergePdnsGrouped(): Promise<void> {
    await this.client.query(
      `insert into pdns as p (rrname_rev, rrtype, rdata, first_seen, last_seen, count, source)
       select rrname_rev, rrtype, rdata, to_timestamp(first_seen), to_timestamp(last_seen), count, $1
       from whois_stage_pdns
       on conflict (rrtype, rdata, rrname_rev) do update set
         first_seen = least(p.first_seen, excluded.first_seen),
         last_seen = greatest(p.last_seen, excluded.last_seen),
         count = p.count + excluded.count`,
      [this.source],
    );
  }

  // One staged row a name (NamesSeen): no grouping left, only the key order.
  private async mergeNames(names: CopyBuffer): Promise<void> {
    if (names.length === 0) return;
    await this.copy(this.namesClient, 'whois_stage_names (name_rev, first_seen, last_seen)', names.chunks());
    await this.namesClient.query(
      `insert into subdomains as s (name_rev, first_seen, last_seen, sources)
       select name_rev, to_timestamp(first_seen), to_timestamp(last_seen), array[$1::text]
       from whois_stage_names order by name_rev
       on conflict (name_rev) do update set
         first_seen = least(s.first_seen, excluded.first_seen),
         last_seen = greatest(s.last_seen, excluded.last_seen),
         sources = case when $1 = any(s.sources) or cardinality(s.sources) >= ${MAX_SOURCES} then s.sources else s.sources || excluded.sources end
       -- a name seen again within what is known is left alone (no new row version, no WAL)
       where excluded.first_seen < s.first_seen or excluded.last_seen > s.last_seen
         or not ($1 = any(s.sources) or cardinality(s.sources) >= ${MAX_SOURCES})`,
      [this.source],
    );
    await this.namesClient.query('truncate whois_stage_names');
  }

  private async mergeSnapshots(domains: string[]): Promise<void> {
    await this.client.query(
      `insert into whois_snapshots as w (domain, observed_at, last_observed_at, source, record, registrar_name,
         created_date, updated_date, expires_date, search_text, content_sha256)
       select distinct on (domain, content_sha256) domain,
         min(observed_at) over same, max(observed_at) over same, source, record::jsonb, registrar_name,
         created_date, updated_date, expires_date, search_text, content_sha256
       from whois_stage_snapshots
       window same as (partition by domain, content_sha256)
       order by domain, content_sha256, observed_at
       on conflict (domain, content_sha256) do update set
         observed_at = least(w.observed_at, excluded.observed_at),
         last_observed_at = greatest(w.last_observed_at, excluded.last_observed_at)
       where excluded.observed_at < w.observed_at or excluded.last_observed_at > w.last_observed_at`,
    );
    for (let i = 0; i < domains.length; i += REFRESH_CHUNK) await refreshCurrent(this.db, domains.slice(i, i + REFRESH_CHUNK));
  }
}

/** Lines joined ~1,000 at a time: one write per chunk, never one huge string. */
function* lineChunks(lines: string[]): Generator<string> {
  for (let i = 0; i < lines.length; i += 1000) yield lines.slice(i, i + 1000).join('');
}
