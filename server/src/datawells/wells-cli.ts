/**
 * The operator commands on data wells (README.md, "Operator commands"): list the catalogue
 * with what each well holds in the index, correct a well's metadata or name, take a well
 * down. The catalogue is PostgreSQL (read by every server on each request: a change is seen
 * at once); a well's records are in the index, where a rename or a takedown is an entry of
 * `wells.log` (engine/FORMAT.md) that every server applies at its next check, within a
 * second.
 */
import type { Kysely } from 'kysely';
import { loadConfig } from '../config';
import { withDatabase } from '../db/cli-database';
import type { Database } from '../db/schema';
import { UsageError, stringOption, type CommandContext, type OptionValues } from '../infra/operator-commands';
import { treeBytes } from '../infra/tree-bytes';
import { recordAudit } from '../audit/audit-service';
import { breachNameTaken, correctWell, deleteWell, listWellsForOperators, lockWellByName, wellNameTaken, WELL_FLAGS, type WellFlagColumn } from './datawells-repository';
import { readSegments, wellIndexBytes, withIndex } from './well-index';

/** A well name as the engine and the catalogue keep it. */
function wellNameProblem(name: string): string | null {
  if (!name.trim()) return 'a well name must not be empty';
  if (Buffer.byteLength(name) > 256) return 'a well name must be at most 256 bytes';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'a well name must not contain control characters';
  return null;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_DESCRIPTION = 10_000;
const MAX_REASON = 2_000;

function indexDirOf(values: OptionValues): string {
  return stringOption(values, 'index-dir') ?? loadConfig().indexDir;
}

async function findWell(db: Kysely<Database>, name: string) {
  const row = await lockWellByName(db, name);
  if (!row) throw new Error(`no data well named ${JSON.stringify(name)} (see npm run admin -- well:list)`);
  return row;
}

/** `well:list [--json] [--index-dir DIR]`. */
export async function listWellsCommand(values: OptionValues): Promise<number> {
  const segments = readSegments(indexDirOf(values));
  const wells = await withDatabase((db) => listWellsForOperators(db));
  const option = new Map(WELL_FLAGS.map((f) => [f.column, f.option]));
  const listed = wells.map(({ segment_ids, flags, ...w }) => ({
    ...w,
    flags: flags.map((column) => option.get(column) ?? column),
    index_bytes: wellIndexBytes(segments, segment_ids),
  }));
  if (values.json) {
    process.stdout.write(`${JSON.stringify(listed, null, 2)}\n`);
    return 0;
  }
  if (listed.length === 0) {
    process.stdout.write('No data wells.\n');
    return 0;
  }
  for (const w of listed) {
    process.stdout.write(
      `${w.name}\n  records ${w.records.toLocaleString('en-US')}, date ${w.date ?? '-'}, ${w.sensitive ? 'sensitive' : 'not sensitive'}, ` +
        `ingested ${w.ingested_at}, index ${w.index_bytes.toLocaleString('en-US')} bytes\n` +
        `  breach name ${w.breach_name}, domain ${w.domain || '-'}, ${w.flags.length ? w.flags.join(', ') : 'no flags'}\n` +
        `  ${w.description || '(no description)'}\n`,
    );
  }
  return 0;
}

interface WellUpdate {
  name: string;
  description?: string;
  date?: string;
  rename?: string;
  breachName?: string;
  domain?: string;
  /** '' clears the logo. */
  logo?: string;
  flags: Partial<Record<WellFlagColumn, boolean>>;
  reason?: string;
}

function isRealDay(date: string): boolean {
  return DATE.test(date) && !Number.isNaN(Date.parse(`${date}T00:00:00Z`)) && new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) === date;
}

/** Breach API v3's Name: a stable identifier for URLs (breach/{name}), no spaces. */
const BREACH_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** A host name: labels of letters, digits and inner hyphens, a dot between them. */
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
/** A same-origin path (what the dashboard and LogoPath show). */
const LOGO = /^\/(?!\/)\S{0,500}$/;

/** The flags given: `--X` true, `--no-X` false, neither left alone. */
function flagChanges(values: OptionValues): WellUpdate['flags'] {
  const flags: WellUpdate['flags'] = {};
  for (const { option, column } of WELL_FLAGS) {
    if (values[option] && values[`no-${option}`]) throw new UsageError(`give --${option} or --no-${option}, not both`);
    if (values[option]) flags[column] = true;
    else if (values[`no-${option}`]) flags[column] = false;
  }
  return flags;
}

/** --breach-name, --domain and --logo, checked (a domain is kept in lower case). */
function modelFields(values: OptionValues): Pick<WellUpdate, 'breachName' | 'domain' | 'logo'> {
  const breachName = stringOption(values, 'breach-name')?.trim();
  const domain = stringOption(values, 'domain')?.trim().toLowerCase();
  const logo = stringOption(values, 'logo')?.trim();
  if (breachName !== undefined && !BREACH_NAME.test(breachName)) {
    throw new UsageError('--breach-name must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit (no spaces)');
  }
  if (domain !== undefined && domain !== '' && !DOMAIN.test(domain)) throw new UsageError("--domain must be a domain name such as example.com, or '' for none");
  if (logo !== undefined && logo !== '' && !LOGO.test(logo)) throw new UsageError("--logo must be a path on this server such as /logos/well.png, or '' for none");
  return { breachName, domain, logo };
}

/** well:update's options, checked. */
function wellUpdate(values: OptionValues): WellUpdate {
  const name = stringOption(values, 'well');
  if (!name) throw new UsageError('well:update needs --well NAME');
  const description = stringOption(values, 'description');
  const date = stringOption(values, 'date');
  const rename = stringOption(values, 'rename')?.trim();
  const reason = stringOption(values, 'reason');
  if (date !== undefined && !isRealDay(date)) throw new UsageError('--date must be a real day, YYYY-MM-DD');
  if (description !== undefined && description.length > MAX_DESCRIPTION) throw new UsageError(`--description is at most ${MAX_DESCRIPTION} characters`);
  if (reason !== undefined && reason.length > MAX_REASON) throw new UsageError(`--reason is at most ${MAX_REASON} characters`);
  if (rename !== undefined) {
    const problem = wellNameProblem(rename);
    if (problem) throw new UsageError(`--rename: ${problem}`);
  }
  const update: WellUpdate = { name, description, date, rename, ...modelFields(values), flags: flagChanges(values), reason };
  if (Object.keys(changedDetails(update)).length === 0 && rename === undefined) {
    const flags = WELL_FLAGS.map(({ option }) => `--${option}/--no-${option}`).join(', ');
    throw new UsageError(`nothing to change: give --description, --date, --rename, --breach-name, --domain, --logo or one of ${flags}`);
  }
  return update;
}

/** What changes, as the audit entry records it (its keys in this order). */
function changedDetails(update: WellUpdate): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  if (update.description !== undefined) details.description = update.description;
  if (update.date !== undefined) details.date = update.date;
  if (update.flags.is_sensitive !== undefined) details.sensitive = update.flags.is_sensitive;
  if (update.rename !== undefined && update.rename !== update.name) details.rename = update.rename;
  if (update.breachName !== undefined) details.breach_name = update.breachName;
  if (update.domain !== undefined) details.domain = update.domain;
  if (update.logo !== undefined) details.logo = update.logo;
  for (const { option, column } of WELL_FLAGS) {
    if (column !== 'is_sensitive' && update.flags[column] !== undefined) details[option] = update.flags[column];
  }
  return details;
}

/** `well:update --well NAME …`: the catalogue, the audit entry and (on a rename) the index, together. */
export async function updateWellCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const update = wellUpdate(values);
  const { name, rename, breachName } = update;
  const indexDir = indexDirOf(values);
  const changed = await withDatabase((db) =>
    db.transaction().execute(async (trx) => {
      const well = await findWell(trx, name);
      if (rename !== undefined && rename !== name && (await wellNameTaken(trx, rename))) throw new Error(`a data well named ${JSON.stringify(rename)} already exists`);
      if (breachName !== undefined && (await breachNameTaken(trx, breachName, well.id))) throw new Error(`another data well has the breach name ${JSON.stringify(breachName)} (in any case)`);
      const details = changedDetails(update);
      await correctWell(trx, well.id, {
        description: update.description,
        date: update.date,
        name: details.rename as string | undefined,
        breachName,
        domain: update.domain,
        image: update.logo === undefined ? undefined : update.logo || null,
        flags: update.flags,
      });
      await recordAudit(trx, { operator, action: 'well:update', target: name, reason: update.reason ?? null, details });
      // The index last, inside the transaction: if it fails, the catalogue is unchanged;
      // if the commit fails after it, running the command again repairs the catalogue.
      if (details.rename !== undefined && well.segment_ids.length > 0) {
        await withIndex(indexDir, (engine) => engine.editWells({ rename: well.segment_ids.map((id) => [id, rename!] as [string, string]) }));
      }
      return details;
    }),
  );
  process.stdout.write(`${name}: updated ${Object.keys(changed).join(', ')}.\n`);
  return 0;
}

/** `--purge`: rewrites the segments holding taken-down records now, rather than at the next merge. */
async function purge(indexDir: string): Promise<void> {
  const before = treeBytes(indexDir);
  const result = await withIndex(indexDir, (engine) => engine.purge());
  const after = treeBytes(indexDir);
  process.stdout.write(
    `purged: ${result.dropped.length} segment(s) dropped, ${result.rewritten.length} rewritten; index ${before.toLocaleString('en-US')} -> ${after.toLocaleString('en-US')} bytes.\n`,
  );
}

/** `well:delete --well NAME [--reason T] [--purge]`: a takedown. */
export async function deleteWellCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const name = stringOption(values, 'well');
  if (!name) throw new UsageError('well:delete needs --well NAME');
  const reason = stringOption(values, 'reason');
  if (reason !== undefined && reason.length > MAX_REASON) throw new UsageError(`--reason is at most ${MAX_REASON} characters`);
  const indexDir = indexDirOf(values);
  const removed = await withDatabase((db) =>
    db.transaction().execute(async (trx) => {
      const well = await findWell(trx, name);
      await deleteWell(trx, well.id);
      await recordAudit(trx, {
        operator,
        action: 'well:delete',
        target: name,
        reason: reason ?? null,
        details: { records: Number(well.records), segment_ids: well.segment_ids, purge: Boolean(values.purge) },
      });
      // The takedown itself, last inside the transaction (see well:update).
      if (well.segment_ids.length > 0) await withIndex(indexDir, (engine) => engine.editWells({ delete: well.segment_ids }));
      return well;
    }),
  );
  process.stdout.write(`${name}: taken down (${Number(removed.records).toLocaleString('en-US')} records hidden on every server).\n`);
  if (values.purge) await purge(indexDir);
  return 0;
}
