/**
 * LISTEN on a connection of its own for the ingest's `NOTIFY monitor_segments` (docs/monitoring.md
 * "Segment"). A lost connection is logged and made again after RECONNECT_MS; each time it
 * listens again, `onListening` runs (the watcher sweeps what was published meanwhile).
 */
import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { SEGMENT_CHANNEL } from './matching-repository';

const RECONNECT_MS = 2000;

export interface SegmentListenerDeps {
  connectionString: string;
  log: FastifyBaseLogger;
  /** A segment id published by the ingest. */
  onSegment(segmentId: string): void;
  /** Listening (again): whatever was published while we were not. */
  onListening(): Promise<void>;
}

/** The listener's state: whether it is closed, its connection, its pending reconnect. */
interface ListenerState {
  closed: boolean;
  client?: pg.Client;
  reconnectTimer?: NodeJS.Timeout;
}

function scheduleReconnect(state: ListenerState, deps: SegmentListenerDeps) {
  if (state.closed || state.reconnectTimer) return;
  state.reconnectTimer = setTimeout(() => {
    state.reconnectTimer = undefined;
    void connect(state, deps);
  }, RECONNECT_MS);
  state.reconnectTimer.unref();
}

/** A new client that drops itself and reconnects once it is lost, and hands on the segments' notifications. */
function newClient(state: ListenerState, deps: SegmentListenerDeps): { client: pg.Client; lost: (error?: Error) => void } {
  const client = new pg.Client({ connectionString: deps.connectionString });
  const lost = (error?: Error) => {
    if (state.client !== client) return;
    state.client = undefined;
    client.removeAllListeners('notification');
    void client.end().catch(() => {});
    if (!state.closed) {
      deps.log.warn({ err: { message: error?.message ?? 'connection ended' } }, 'segment listener lost its connection; reconnecting');
      scheduleReconnect(state, deps);
    }
  };
  client.on('error', lost);
  client.on('end', () => lost());
  client.on('notification', (message) => {
    if (message.channel !== SEGMENT_CHANNEL || !message.payload) return;
    deps.onSegment(message.payload);
  });
  return { client, lost };
}

async function connect(state: ListenerState, deps: SegmentListenerDeps): Promise<void> {
  if (state.closed) return;
  const { client, lost } = newClient(state, deps);
  state.client = client;
  try {
    await client.connect();
    await client.query(`LISTEN ${SEGMENT_CHANNEL}`);
  } catch (error) {
    lost(error as Error);
    return;
  }
  if (state.closed) {
    await client.end().catch(() => {});
    return;
  }
  await deps.onListening();
}

/** Starts listening now; `close` ends the connection and any reconnect. */
export function listenForSegments(deps: SegmentListenerDeps): { close(): Promise<void> } {
  const state: ListenerState = { closed: false };
  void connect(state, deps);
  return {
    async close() {
      state.closed = true;
      if (state.reconnectTimer) clearTimeout(state.reconnectTimer);
      const current = state.client;
      state.client = undefined;
      await current?.end().catch(() => {});
    },
  };
}
