/**
 * Preloaded into every test process (`--import ./server/test/setup.ts`, see scripts/test.mjs
 * and the test:e2e script): one root-level hook that runs the cleanups test helpers
 * registered (the harness closes its leftover servers and stops the embedded PostgreSQL,
 * a child process that would otherwise keep the test process alive). A helper imported
 * inside a test cannot register a root hook itself: its hook would belong to that test.
 */
import { after } from 'node:test';
import { runCleanups } from './support/cleanups';

after(runCleanups);
