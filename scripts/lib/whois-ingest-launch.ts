/**
 * The entry of the built `whois-ingest` command (dist/whois-ingest.mjs, scripts/build.mjs): `--help` alone is
 * answered before the ingest's modules (the database client, the parsers) load, which take
 * longer than Node's own start; anything else runs scripts/whois-ingest.ts.
 */
import { USAGE } from './whois-ingest-usage';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) {
  console.log(USAGE);
  process.exit(0);
}
const { runCli } = await import('../whois-ingest');
runCli();
