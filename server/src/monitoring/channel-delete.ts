/** Deleting channels: by ids (all must be the caller's, else 404 and nothing is deleted), or /v2's by kind. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { channelKind, type ChannelKind } from '../common/monitoring-rules';
import * as repo from './channels-repository';
import { taskId } from './task-input';
import { CHANNEL_NOT_FOUND } from './channel-input';

/** Deletes channels; every id must be the caller's (else 404 and nothing is deleted). */
export async function removeChannels(db: Kysely<Database>, userId: string, rawIds: unknown[]): Promise<void> {
  const ids = rawIds.map(taskId);
  if (ids.some((id) => id === undefined)) throw Errors.notFound(CHANNEL_NOT_FOUND);
  const unique = [...new Set(ids as string[])];
  await db.transaction().execute(async (trx) => {
    if ((await repo.countOwned(trx, userId, unique)) !== unique.length) throw Errors.notFound(CHANNEL_NOT_FOUND);
    await repo.deleteChannels(trx, userId, unique);
  });
}

/** /v2 delete-channel: a kind (every channel of it) or a channel id, among `kinds` only
 * (a channel of another kind is as unknown as another user's). */
export async function removeChannelsByKindOrId(db: Kysely<Database>, userId: string, channel: string | number, kinds: readonly ChannelKind[]): Promise<void> {
  const kind = channelKind(channel);
  const rows = (await repo.listChannels(db, userId)).filter((row) => kinds.includes(row.kind));
  if (!kind) {
    const id = taskId(channel);
    if (id === undefined || !rows.some((row) => String(row.id) === id)) throw Errors.notFound(CHANNEL_NOT_FOUND);
    return removeChannels(db, userId, [id]);
  }
  const ids = rows.filter((row) => row.kind === kind).map((row) => row.id);
  if (ids.length === 0) throw Errors.notFound(CHANNEL_NOT_FOUND);
  await removeChannels(db, userId, ids);
}
