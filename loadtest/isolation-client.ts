/**
 * The isolation scenario's clients (isolation.ts), in a child process of http-bench.ts so
 * they do not share the server's event loop: the job comes in as the first IPC message, the
 * report goes back as one.
 *
 * - paced: one keep-alive connection, a one-hit exact `POST /v2/search` at `hz` a second
 *   (sent on schedule, whatever the previous answer took, as a client with a timer does).
 * - heavy: one keep-alive connection per account, each sending its next costly regex
 *   search as soon as the previous one is answered.
 */
import http from 'node:http';
import { heavyQuery, type IsolationJob, type IsolationReport } from './isolation';

function post(agent: http.Agent, url: URL, headers: Record<string, string>, body: string): Promise<{ ms: number; status: number; text: string }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const req = http.request({ host: url.hostname, port: url.port, method: 'POST', path: '/v2/search', agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (e) => resolve({ ms: performance.now() - t0, status: 0, text: String(e) }));
    });
    req.on('error', (e) => resolve({ ms: performance.now() - t0, status: 0, text: String(e) }));
    req.end(body);
  });
}

class Collector {
  readonly latencies: number[] = [];
  readonly failures: Record<string, number> = {};
  readonly samples = new Map<number, string>();
  private readonly start = performance.now();

  add(answer: { ms: number; status: number; text: string }, ok: boolean) {
    if (ok) this.latencies.push(answer.ms);
    else {
      this.failures[answer.status] = (this.failures[answer.status] ?? 0) + 1;
      if (!this.samples.has(answer.status)) this.samples.set(answer.status, `${answer.status}: ${answer.text.slice(0, 200)}`);
    }
  }

  report(): IsolationReport {
    return { latencies: this.latencies, failures: this.failures, samples: [...this.samples.values()], seconds: (performance.now() - this.start) / 1000 };
  }
}

async function paced(job: Extract<IsolationJob, { role: 'paced' }>): Promise<IsolationReport> {
  const url = new URL(job.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { 'content-type': 'application/json', [job.header]: job.key };
  const collector = new Collector();
  const start = performance.now();
  const count = Math.round(job.seconds * job.hz);
  for (let i = 0; i < count; i++) {
    const wait = start + (i * 1000) / job.hz - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const answer = await post(agent, url, headers, job.body);
    collector.add(answer, answer.status === 200 && answer.text.includes(job.expect));
  }
  agent.destroy();
  return collector.report();
}

async function heavy(job: Extract<IsolationJob, { role: 'heavy' }>): Promise<IsolationReport> {
  const url = new URL(job.url);
  const collector = new Collector();
  const end = performance.now() + job.seconds * 1000;
  let n = job.first;
  await Promise.all(
    job.keys.map(async (key) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const headers = { 'content-type': 'application/json', [job.header]: key };
      while (performance.now() < end) {
        const answer = await post(agent, url, headers, JSON.stringify({ query: heavyQuery(n++), regex: true, size: 20 }));
        collector.add(answer, answer.status === 200);
      }
      agent.destroy();
    }),
  );
  return collector.report();
}

process.once('message', (job: IsolationJob) => {
  void (job.role === 'paced' ? paced(job) : heavy(job)).then((report) => process.send!(report, () => process.exit(0)));
});
