/**
 * The entry of `npm run corpus` (a developer command, run by tsx): `--help` alone is answered
 * before the generator and its word lists (@faker-js/faker) load; anything else runs
 * scripts/corpus.ts.
 */
export const USAGE = `usage: npm run corpus -- [--records N] [--seed S] [--out DIR]
       npm run corpus -- --formats [--records N] [--seed S] [--out DIR]
Writes N synthetic breach records (default 1000000, seed 1) as 42 sources of different
shapes under DIR/sources, and DIR/corpus.json (default DIR: ./data/corpus); --formats
writes one file per ingest format instead. See docs/benchmark-method.md, "Corpus".`;

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) {
  console.log(USAGE);
  process.exit(0);
}
const { runCli } = await import('../corpus');
runCli();
