/** The entry of the built `ingest` command (dist/ingest.mjs, scripts/build.mjs): runs scripts/ingest.ts on process.argv. */
import { runCli } from '../ingest';

runCli();
