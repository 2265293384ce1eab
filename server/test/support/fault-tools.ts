/**
 * Fault injection on real servers, for the fault tests (34, 35, Redis restarts):
 * - a loopback TCP proxy put between the product and a real server (PostgreSQL), which
 *   passes traffic, delays every chunk, holds it (a silent network), resets every
 *   connection, or refuses new ones (the server is down);
 * - a private redis-server on a free port, stopped and started again by the test;
 * - small helpers: a free port, timed HTTP requests that never throw.
 */
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './ports';

export type ProxyMode =
  | { kind: 'pass' }
  /** Every chunk, both ways, is forwarded this much later (order kept). */
  | { kind: 'delay'; ms: number }
  /** Connections are accepted and nothing is forwarded until the mode changes (buffered). */
  | { kind: 'hold' }
  /** Every connection is reset, new ones too (accepted, then destroyed). */
  | { kind: 'reset' }
  /** The listener is closed: connecting is refused (ECONNREFUSED), as when the server is down. */
  | { kind: 'refuse' };

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  rewrite(url: string): string;
  mode(): ProxyMode;
  setMode(mode: ProxyMode): Promise<void>;
  /** Connections open through the proxy now. */
  connections(): number;
  close(): Promise<void>;
}

/** One direction of a proxied connection: chunks leave in order at their release time. */
class Pipe {
  private queue: { data: Buffer; at: number }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    from: net.Socket,
    private readonly to: net.Socket,
    private readonly releaseAt: () => number,
  ) {
    from.on('data', (data: Buffer) => {
      const last = this.queue.at(-1)?.at ?? 0;
      this.queue.push({ data, at: Math.max(this.releaseAt(), last) });
      this.pump();
    });
  }

  /** Held chunks leave now (the mode changed). */
  release(): void {
    const now = Date.now();
    for (const item of this.queue) item.at = Math.min(item.at, Math.max(now, this.releaseAt()));
    this.pump();
  }

  pump(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const now = Date.now();
    while (this.queue.length && this.queue[0]!.at <= now) {
      const { data } = this.queue.shift()!;
      if (!this.to.destroyed) this.to.write(data);
    }
    const next = this.queue[0];
    if (next && Number.isFinite(next.at)) this.timer = setTimeout(() => this.pump(), next.at - now);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.queue = [];
  }
}

/** A TCP proxy on 127.0.0.1 (a free port) to `target`, passing traffic until told otherwise. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = { kind: 'pass' };
  const open = new Set<{ client: net.Socket; upstream: net.Socket; pipes: Pipe[] }>();
  const releaseAt = () => (mode.kind === 'hold' ? Infinity : mode.kind === 'delay' ? Date.now() + mode.ms : Date.now());

  const server = net.createServer((client) => {
    if (mode.kind === 'reset' || mode.kind === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    const entry = { client, upstream, pipes: [new Pipe(client, upstream, releaseAt), new Pipe(upstream, client, releaseAt)] };
    open.add(entry);
    const teardown = () => {
      if (!open.delete(entry)) return;
      for (const pipe of entry.pipes) pipe.stop();
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', teardown);
      socket.on('close', teardown);
    }
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  let listening = true;

  const resetAll = () => {
    for (const { client, upstream, pipes } of [...open]) {
      for (const pipe of pipes) pipe.stop();
      client.resetAndDestroy();
      upstream.destroy();
    }
    open.clear();
  };

  return {
    port,
    rewrite(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    mode: () => mode,
    async setMode(next) {
      mode = next;
      if (next.kind === 'reset' || next.kind === 'refuse') resetAll();
      if (next.kind === 'refuse' && listening) {
        listening = false;
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      if (next.kind !== 'refuse' && !listening) {
        await listen(port);
        listening = true;
      }
      for (const entry of open) for (const pipe of entry.pipes) pipe.release();
    },
    connections: () => open.size,
    async close() {
      mode = { kind: 'refuse' };
      resetAll();
      if (listening) await new Promise<void>((resolve) => server.close(() => resolve()));
      listening = false;
    },
  };
}

export interface PrivateRedis {
  port: number;
  url: string;
  /** Stops the server: `save` writes its data first (a graceful restart keeps it), otherwise it is lost (a crash). */
  stop(options?: { save?: boolean }): Promise<void>;
  start(): Promise<void>;
  running(): boolean;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

/** A redis-server of the test's own on a free loopback port, no persistence unless stopped with `save`. */
export async function startPrivateRedis(binary = '/usr/bin/redis-server'): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-test-redis-'));
  let child: ChildProcess | undefined;
  let output = '';

  const start = async () => {
    if (child) return;
    output = '';
    const process_ = spawn(
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--dbfilename', 'dump.rdb', '--protected-mode', 'yes'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = process_;
    process_.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    process_.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    process_.once('exit', () => {
      if (child === process_) child = undefined;
    });
    const deadline = Date.now() + 10_000;
    while (!/Ready to accept connections/.test(output)) {
      if (!child) throw new Error(`redis-server exited: ${output.slice(-500)}`);
      if (Date.now() > deadline) throw new Error(`redis-server did not start: ${output.slice(-500)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  const command = (line: string) =>
    new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(`${line}\r\n`));
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
      socket.setTimeout(5000, () => socket.destroy());
    });

  const stop = async (options: { save?: boolean } = {}) => {
    const running = child;
    if (!running) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    if (options.save) await command('SHUTDOWN SAVE');
    else running.kill('SIGKILL');
    await exited;
    if (!options.save) fs.rmSync(path.join(dir, 'dump.rdb'), { force: true });
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    running: () => Boolean(child),
    async close() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Timed {
  status: number;
  ms: number;
  body: string;
  /** The error code when no answer came (ECONNREFUSED, ECONNRESET, …). */
  error?: string;
}

/** A request that never throws: its status (0 when none), time and body, or the network error. */
export async function timedFetch(url: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Timed> {
  const started = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? 30_000) });
    const body = await response.text();
    return { status: response.status, ms: performance.now() - started, body };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    const code = cause?.code ?? (error as { name?: string }).name ?? 'ERROR';
    return { status: 0, ms: performance.now() - started, body: '', error: code };
  }
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
