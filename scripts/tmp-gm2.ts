import { openEngine } from '../engine/index';
const e = await openEngine('/work/bench/10000000-1/index');
for (const q of ['email:*@gmail.com', 'email:*@yahoo.com', 'domain:gmail.com', 'password:"123456"']) {
  for (const [cc, dedup] of [[false, false], [true, false], [true, false], [true, false], [false, true], [true, true], [true, true]] as const) {
    const t0 = performance.now();
    const r = await e.searchApiReply({ query: q, mode: q.includes('*') ? 'wildcard' : 'exact', size: 20, countCache: cc, dedup }, false, 0);
    const s = r.toString();
    console.log(q, 'cache', cc, 'dedup', dedup, (performance.now() - t0).toFixed(3), 'ms; took', /"took":"([^"]*)"/.exec(s)?.[1], 'total', /"total":(\d+)/.exec(s)?.[1], 'first', /"id":"([^"]*)"/.exec(s)?.[1]);
  }
}
await e.close();
