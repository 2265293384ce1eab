/** Who may join a channel (realtime-routes.ts): "test" is open to everyone, every other channel to whom its rule allows. */
import type { ChannelRule } from './realtime-service';

export const CHANNEL_PATTERN = /^[a-z0-9-]{1,100}$/;
export const PUBLIC_CHANNELS = new Set(['test']);

export type JoinVerdict = 'ok' | 'Unauthorized' | 'Not Found';

/** The join check over the features' rules (one per channel prefix): 'ok', or the error the client is told. */
export function channelAccess(rules: ChannelRule[]) {
  const ruleFor = (channel: string) => rules.find((rule) => channel.startsWith(rule.prefix));
  return async (channel: string, userId: string | undefined): Promise<JoinVerdict> => {
    if (PUBLIC_CHANNELS.has(channel)) return 'ok';
    if (!userId) return 'Unauthorized';
    const rule = ruleFor(channel);
    return rule && (await rule.authorize(channel, userId)) ? 'ok' : 'Not Found';
  };
}
