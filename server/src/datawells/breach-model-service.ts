/**
 * The breach model of the notification service's Breach API v3, built from our data-well
 * catalogue (docs/api-compatibility.md, "Breach API v3"). Field names and order are the
 * service's; every route of the API (server/src/breach-api/) answers wells in this shape.
 *
 * From the catalogue's columns: Name breach_name (stable, no spaces, unique in any case),
 * Title name, Domain domain, BreachDate date (the day the well was added when unknown),
 * AddedDate created_at, ModifiedDate updated_at, PwnCount records, Description description
 * (our descriptions are plain text: served HTML-escaped, which is valid HTML), LogoPath
 * image (a same-origin path, served as an absolute URL under PUBLIC_URL; '' when none),
 * DataClasses data_types (DATA_CLASS_NAMES), the flags their is_* columns.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { breachRowByName, breachRows, breachRowsByWellName, latestBreachRow, type BreachModelRow } from './datawells-repository';

export interface BreachModel {
  Name: string;
  Title: string;
  Domain: string;
  /** YYYY-MM-DD. */
  BreachDate: string;
  /** ISO 8601, seconds, `Z`. */
  AddedDate: string;
  ModifiedDate: string;
  PwnCount: number;
  /** HTML. */
  Description: string;
  LogoPath: string;
  /** The service's names ("Email addresses", "Passwords", ...), sorted. */
  DataClasses: string[];
  IsVerified: boolean;
  IsFabricated: boolean;
  IsSensitive: boolean;
  IsRetired: boolean;
  IsSpamList: boolean;
  IsMalware: boolean;
  IsSubscriptionFree: boolean;
  IsStealerLog: boolean;
}

/**
 * Our field names to the service's data-class names (its public list, GET dataclasses).
 * Plain and hashed passwords are both "Passwords"; a licence plate and a VIN are "Vehicle
 * details"; `url` (a profile's website, or the site of a stealer-log line) is "User website
 * URLs". `domain` (a hostname column) has no class of its own: it is left out.
 */
export const DATA_CLASS_NAMES: Readonly<Record<string, string>> = {
  email: 'Email addresses',
  username: 'Usernames',
  password: 'Passwords',
  hashed_password: 'Passwords',
  ip_address: 'IP addresses',
  name: 'Names',
  dob: 'Dates of birth',
  license_plate: 'Vehicle details',
  vin: 'Vehicle details',
  address: 'Physical addresses',
  phone: 'Phone numbers',
  company: 'Employers',
  url: 'User website URLs',
  social: 'Social media profiles',
  cryptocurrency_address: 'Cryptocurrency wallet addresses',
};

export function dataClasses(dataTypes: readonly string[]): string[] {
  return [...new Set(dataTypes.map((t) => DATA_CLASS_NAMES[t]).filter((c): c is string => c !== undefined))].sort();
}

/** Every data class the catalogue can name, sorted (GET dataclasses). */
export function allDataClasses(): string[] {
  return [...new Set(Object.values(DATA_CLASS_NAMES))].sort();
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Plain text as HTML that shows exactly that text. */
export function htmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** Only a same-origin path (what the dashboard shows too) becomes a logo URL. */
const LOGO_PATH = /^\/(?!\/)\S*$/;

/** How models are built: `publicUrl` (PUBLIC_URL) makes LogoPath absolute; without it LogoPath is ''. */
export interface ModelOptions {
  publicUrl?: string;
}

function toModel(r: BreachModelRow, options: ModelOptions): BreachModel {
  return {
    Name: r.breach_name,
    Title: r.name,
    Domain: r.domain,
    BreachDate: r.breach_date,
    AddedDate: r.added_date,
    ModifiedDate: r.modified_date,
    PwnCount: Number(r.records),
    Description: htmlEscape(r.description),
    LogoPath: options.publicUrl && r.image && LOGO_PATH.test(r.image) ? `${options.publicUrl}${r.image}` : '',
    DataClasses: dataClasses(r.data_types),
    IsVerified: r.is_verified,
    IsFabricated: r.is_fabricated,
    IsSensitive: r.is_sensitive,
    IsRetired: r.is_retired,
    IsSpamList: r.is_spam_list,
    IsMalware: r.is_malware,
    IsSubscriptionFree: r.is_subscription_free,
    IsStealerLog: r.is_stealer_log,
  };
}

/** The catalogue's filters of GET breaches: the breached site's domain (any case), spam lists or not. */
export interface BreachFilter {
  domain?: string;
  isSpamList?: boolean;
}

/** Every well as a breach model, by Name (case-insensitively), filtered. */
export async function listBreachModels(db: Kysely<Database>, filter: BreachFilter = {}, options: ModelOptions = {}): Promise<BreachModel[]> {
  return (await breachRows(db, filter)).map((r) => toModel(r, options));
}

/** The well whose Name is `name` in any case; undefined when there is none. */
export async function breachModelByName(db: Kysely<Database>, name: string, options: ModelOptions = {}): Promise<BreachModel | undefined> {
  const row = await breachRowByName(db, name);
  return row && toModel(row, options);
}

/** The well added last (AddedDate); undefined when the catalogue is empty. */
export async function latestBreachModel(db: Kysely<Database>, options: ModelOptions = {}): Promise<BreachModel | undefined> {
  const row = await latestBreachRow(db);
  return row && toModel(row, options);
}

/** The models of the wells named `names` (our well names, as search results name them), by well name; unknown names are left out. */
export async function breachModelsByWellName(db: Kysely<Database>, names: string[], options: ModelOptions = {}): Promise<Map<string, BreachModel>> {
  const rows = await breachRowsByWellName(db, [...new Set(names)]);
  return new Map(rows.map((r) => [r.name, toModel(r, options)]));
}
