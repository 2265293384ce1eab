/**
 * Every migration by name, in the order Kysely runs them (by name). Imported statically so
 * the built server (dist/, scripts/build.mjs) carries them and needs no migrations/ folder at
 * run time. A new migration is added here too: server/test/infra/migrations-index.test.ts
 * fails while a file of this folder is missing from the list.
 */
import type { Migration } from 'kysely';
import * as m0001 from './20261122T0001_accounts';
import * as m0002 from './20261122T0002_search_and_credits';
import * as m0003 from './20261123T0003_payments';
import * as m0004 from './20261123T0004_marketing_banner';
import * as m0005 from './20261123T0005_monitoring';
import * as m0006 from './20261123T0006_whois';
import * as m0007 from './20261124T0007_pdns_one_key';
import * as m0008 from './20261128T0008_domain_verification';
import * as m0009 from './20261128T0009_channel_confirmation';
import * as m0010 from './20261128T0010_audit_log';
import * as m0011 from './20261128T0011_two_factor';
import * as m0012 from './20261128T0012_sessions_visible';
import * as m0013 from './20261128T0013_account_suspension';
import * as m0015 from './20261128T0015_invoice_details';
import * as m0016 from './20261206T0016_breach_model';

export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '20261122T0001_accounts': m0001,
  '20261122T0002_search_and_credits': m0002,
  '20261123T0003_payments': m0003,
  '20261123T0004_marketing_banner': m0004,
  '20261123T0005_monitoring': m0005,
  '20261123T0006_whois': m0006,
  '20261124T0007_pdns_one_key': m0007,
  '20261128T0008_domain_verification': m0008,
  '20261128T0009_channel_confirmation': m0009,
  '20261128T0010_audit_log': m0010,
  '20261128T0011_two_factor': m0011,
  '20261128T0012_sessions_visible': m0012,
  '20261128T0013_account_suspension': m0013,
  '20261128T0015_invoice_details': m0015,
  '20261206T0016_breach_model': m0016,
};
