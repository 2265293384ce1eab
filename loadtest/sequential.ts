/**
 * One API client waiting for each answer, the way most API clients and every dashboard user
 * work: one keep-alive connection, a bare route (`GET /livez`, the floor) and a one-hit
 * `POST /v2/search` in turn, back to back and then paced (pairs at `paceHz`). The server
 * time of a search is its round trip less the same connection's bare-route round trip, so
 * the client's own costs (and the loopback's) cancel out.
 *
 * Runs in its own process (http-bench.ts forks it, `--scenario sequential`): the job comes
 * in as the first IPC message, the report goes back as one.
 */
import http from 'node:http';
import type { SequentialJob, SequentialReport, SequentialPhase } from './scenarios';

function request(agent: http.Agent, url: URL, method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<{ ms: number; status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request({ host: url.hostname, port: url.port, method, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))]! : NaN;
};

async function run(job: SequentialJob): Promise<SequentialReport> {
  const url = new URL(job.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(job.header ? { [job.header]: job.key } : {}) };
  const phase = async (pairs: number, paceHz: number): Promise<SequentialPhase> => {
    const floor: number[] = [];
    const search: number[] = [];
    // Paced, the request that goes first after the pause finds every cache cold; the
    // second follows it at once. Each kept apart too, with the engine's own `took`.
    const floorFirst: number[] = [];
    const searchFirst: number[] = [];
    const took: number[] = [];
    let failures = 0;
    const start = performance.now();
    for (let i = 0; i < pairs; i++) {
      if (paceHz > 0) {
        const due = start + (i * 1000) / paceHz;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      // Alternating the order keeps whichever goes second from always finding a warmer path.
      const first = i % 2 === 0;
      const bare = async () => {
        const { ms } = await request(agent, url, 'GET', '/livez', {});
        floor.push(ms);
        return ms;
      };
      const one = async () => {
        const answer = await request(agent, url, 'POST', '/v2/search', headers, job.body);
        if (answer.status !== 200 || !answer.text.includes(job.expect)) failures++;
        const micros = /"took":"(\d+)µs"/.exec(answer.text)?.[1];
        if (micros) took.push(Number(micros));
        search.push(answer.ms);
        return answer.ms;
      };
      if (first) {
        floorFirst.push(await bare());
        await one();
      } else {
        searchFirst.push(await one());
        await bare();
      }
    }
    const floorP50 = percentile(floor, 0.5);
    const searchP50 = percentile(search, 0.5);
    return {
      pairs,
      paceHz,
      floorP50,
      searchP50,
      floorP99: percentile(floor, 0.99),
      searchP99: percentile(search, 0.99),
      addedP50: searchP50 - floorP50,
      failures,
      firstFloorP50: percentile(floorFirst, 0.5),
      firstSearchP50: percentile(searchFirst, 0.5),
      tookP50: took.length ? percentile(took, 0.5) : undefined,
    };
  };
  // Warm both paths (JIT, the engine's blocks) before anything is kept.
  await phase(200, 0);
  const backToBack = await phase(job.pairs, 0);
  const paced = await phase(job.pacedPairs, job.paceHz);
  let page: SequentialReport['page'];
  if (job.page) {
    const floor: number[] = [];
    const pages: number[] = [];
    let failures = 0;
    for (let i = 0; i < 60; i++) {
      floor.push((await request(agent, url, 'GET', '/livez', {})).ms);
      const answer = await request(agent, url, 'POST', '/v2/search', headers, job.page.body);
      // The first runs warm the path; every answer is checked.
      if (answer.status !== 200 || (JSON.parse(answer.text) as { entries: unknown[] }).entries.length !== job.page.entries) failures++;
      if (i >= 10) pages.push(answer.ms);
    }
    page = { entries: job.page.entries, floorP50: percentile(floor.slice(10), 0.5), pageP50: percentile(pages, 0.5), failures };
  }
  agent.destroy();
  return { backToBack, paced, page };
}

process.once('message', (job: SequentialJob) => {
  run(job).then(
    (report) => process.send!(report, () => process.exit(0)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
