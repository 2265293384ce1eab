/**
 * The accounts (the users table) as auth uses them: registration, sign-in lookups, email
 * verification, password changes and closing. Auth holds the rules (hashing, tokens, sessions);
 * this port keeps it out of users' repository, where the SQL stays.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import * as repo from './user-repository';

type Db = Kysely<Database>;

/** An open (not closed) account by email, case-insensitively, with what sign-in checks. */
export function findOpenUserByEmail(db: Db, email: string) {
  return repo.findOpenUserByEmail(db, email);
}

/** An open (not closed) account by id, with what sign-in checks. */
export function findOpenUserById(db: Db, id: string) {
  return repo.findOpenUserById(db, id);
}

/** A new account; undefined when the email is taken. */
export function insertUser(db: Db, user: { email: string; passwordHash: string; verified: boolean }): Promise<string | undefined> {
  return repo.insertUser(db, user);
}

export function markEmailVerified(db: Db, userId: string): Promise<void> {
  return repo.markEmailVerified(db, userId);
}

export function setPasswordHash(db: Db, userId: string, passwordHash: string): Promise<void> {
  return repo.setPasswordHash(db, userId, passwordHash);
}

/** Closes the account (what closing clears is the repository's). */
export function closeUser(db: Db, userId: string): Promise<void> {
  return repo.closeUser(db, userId);
}
