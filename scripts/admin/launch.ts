/**
 * The admin CLI's entry (`npm run admin`, built into dist/admin.mjs by scripts/build.mjs): the usage text is printed before
 * the commands' modules are loaded, which take about three times Node's own start-up; any
 * other command runs scripts/admin.ts.
 */
import { USAGE, asksForUsage } from './usage';

const argv = process.argv.slice(2);
if (asksForUsage(argv)) {
  process.stdout.write(USAGE);
  process.exit(argv[0] ? 0 : 2);
}
await import('../admin');
