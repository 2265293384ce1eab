import { after, before } from 'node:test';
import type { Browser } from 'playwright-core';
import { closeBrowser, launchBrowser } from './browser';
import { startServer, stopServer, type TestServer } from './server';

interface Suite {
  server: TestServer;
  browser: Browser;
}

/**
 * One real server and one browser for the test file; read the fields inside tests.
 * Further set-up goes in `ready`: Node 20 starts top-level `before` hooks without
 * waiting for the previous one, so a second hook could not rely on this one.
 */
export function useServerAndBrowser(ready?: (suite: Suite) => Promise<unknown>): Suite {
  const suite = {} as Suite;
  before(async () => {
    suite.server = await startServer();
    suite.browser = await launchBrowser();
    await ready?.(suite);
  });
  after(async () => {
    await closeBrowser(suite.browser);
    await stopServer(suite.server);
  });
  return suite;
}
