/**
 * What other features see of the realtime hub: the rule type with which they say who may
 * join their channels, and the hub they publish to. The websocket itself is realtime-routes.ts.
 */
import type { SessionsEnded } from '../auth/auth-service';

/** Who may join the channels starting with `prefix` (a signed-in user; undefined when not). */
export interface ChannelRule {
  prefix: string;
  authorize(channel: string, userId: string | undefined): Promise<boolean>;
}

export interface RealtimeHub {
  /** Delivers `data` to the channel's members on every instance. */
  publish(channel: string, data: unknown): Promise<void>;
  /** Closes the sockets authenticated with the ended sessions, on every instance. */
  endSessions(ended: SessionsEnded): Promise<void>;
  /** Who may join the channels of a prefix: a feature says so for its own channels. */
  addChannelRule(rule: ChannelRule): void;
}
