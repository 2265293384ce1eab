/** Reading the user's channels: all of them (newest first), or one by id (another user's: 404). */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import * as repo from './channels-repository';
import type { ChannelRow } from './channels-repository';
import { taskId } from './task-input';
import { CHANNEL_NOT_FOUND } from './channel-input';

export function listChannels(db: Kysely<Database>, userId: string): Promise<ChannelRow[]> {
  return repo.listChannels(db, userId);
}

export async function getChannel(db: Kysely<Database>, userId: string, id: unknown): Promise<ChannelRow> {
  const key = taskId(id);
  const row = key ? await repo.getChannel(db, userId, key) : undefined;
  if (!row) throw Errors.notFound(CHANNEL_NOT_FOUND);
  return row;
}
