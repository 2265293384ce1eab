/** This instance's sockets (realtime-routes.ts): the members of each channel, and the session each socket is signed in as. */
import type { WebSocket } from 'ws';
import type { SessionsEnded } from '../auth/auth-service';

/** What a socket is signed in as: the access token's claims, kept from before they are checked. */
export interface SocketSession {
  userId: string;
  sessionId: string;
  /** Closes the socket and leaves its channels. */
  end(): void;
}

export interface SocketRegistry {
  readonly members: Map<string, Set<WebSocket>>;
  readonly sessions: Map<WebSocket, SocketSession>;
}

export function createSocketRegistry(): SocketRegistry {
  return { members: new Map(), sessions: new Map() };
}

/** Ends the sockets signed in with the ended sessions. */
export function endSessions(registry: SocketRegistry, ended: SessionsEnded) {
  for (const session of [...registry.sessions.values()]) {
    const matches =
      'sessionId' in ended ? session.sessionId === ended.sessionId : session.userId === ended.userId && session.sessionId !== ended.exceptSessionId;
    if (matches) session.end();
  }
}

/** Sends a message to the channel's open sockets. */
export function deliverToMembers(registry: SocketRegistry, channel: string, data: unknown) {
  const text = JSON.stringify({ type: 'message', channel, data });
  for (const socket of registry.members.get(channel) ?? []) if (socket.readyState === socket.OPEN) socket.send(text);
}

export function join(registry: SocketRegistry, socket: WebSocket, channel: string) {
  if (!registry.members.has(channel)) registry.members.set(channel, new Set());
  registry.members.get(channel)!.add(socket);
}

export function leave(registry: SocketRegistry, socket: WebSocket, channel: string) {
  const set = registry.members.get(channel);
  set?.delete(socket);
  if (set?.size === 0) registry.members.delete(channel);
}
