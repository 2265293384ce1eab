/**
 * The sockets' periodic session check. A session can end where no server hears of it: the
 * operator CLI (`user:suspend`) is a separate process that cannot call a server's
 * `endSessions`. Every SESSION_SWEEP_MS each instance asks, in one query, which of its
 * sockets' sessions are still live (not revoked or expired, account open and not
 * suspended; auth's `liveSessionIds`) and closes the others with 4401, so such a socket
 * lives at most that long.
 */
export const SESSION_SWEEP_MS = 5000;
