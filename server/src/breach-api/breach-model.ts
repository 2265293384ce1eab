/**
 * The breach model of the notification service's Breach API v3, built from our data-well
 * catalogue (docs/api-compatibility.md, "Breach API v3"). Field names and order are the
 * service's; every route of the API answers wells in this shape.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { listWellsForOperators } from '../datawells/datawells-repository';

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

/** Our field names to the service's data-class names. */
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
  url: 'Website activity',
  social: 'Social media profiles',
  cryptocurrency_address: 'Cryptocurrency wallet addresses',
  domain: 'Email addresses',
};

export function dataClasses(dataTypes: readonly string[]): string[] {
  return [...new Set(dataTypes.map((t) => DATA_CLASS_NAMES[t]).filter((c): c is string => c !== undefined))].sort();
}

/**
 * Every well of the catalogue as a breach model. Placeholder built from the catalogue's
 * present columns; the breach-model columns (Name, Domain, the flags) replace the defaults.
 */
export async function listBreachModels(db: Kysely<Database>): Promise<BreachModel[]> {
  const rows = await listWellsForOperators(db);
  return rows.map((r) => ({
    Name: r.name.replace(/[^A-Za-z0-9]/g, ''),
    Title: r.name,
    Domain: '',
    BreachDate: r.date ?? '',
    AddedDate: r.ingested_at.replace(/\.\d+Z$/, 'Z'),
    ModifiedDate: r.ingested_at.replace(/\.\d+Z$/, 'Z'),
    PwnCount: r.records,
    Description: r.description,
    LogoPath: '',
    DataClasses: [],
    IsVerified: true,
    IsFabricated: false,
    IsSensitive: r.sensitive,
    IsRetired: false,
    IsSpamList: false,
    IsMalware: false,
    IsSubscriptionFree: false,
    IsStealerLog: false,
  }));
}

/**
 * TEMPORARY (until the catalogue's own version is merged): the breach models of the named
 * wells (their catalogue names, as the engine's entries carry them), by that name; names
 * the catalogue does not hold are left out.
 */
export async function breachModelsByWellName(db: Kysely<Database>, names: string[]): Promise<Map<string, BreachModel>> {
  const wanted = new Set(names);
  const models = await listBreachModels(db);
  return new Map(models.filter((m) => wanted.has(m.Title)).map((m) => [m.Title, m]));
}
