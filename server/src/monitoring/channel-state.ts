/** Whether a channel gets alerts now: it has a value, nobody turned it off, and an email address is confirmed. */
import type { ChannelRow } from './channels-repository';

/** An email channel with an address that is not confirmed yet: it gets no alert. */
export function awaitingConfirmation(row: Pick<ChannelRow, 'kind' | 'value' | 'verified_at'>): boolean {
  return row.kind === 'email' && row.value !== '' && row.verified_at === null;
}

/** Active: it has a value and the system has not turned it off (a 410, an unsubscribe). */
export function channelActive(row: ChannelRow): boolean {
  return row.value !== '' && row.active;
}
