/**
 * The dashboard's built assets: the bundles are served to everyone, their source maps
 * (written by the build for the operator, `sourcemap: 'hidden'`) only when SERVE_SOURCE_MAPS
 * asks, in any mode: not by default, in development as in production.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/harness';

/** A built dashboard in miniature: index.html, a bundle and its map, a top-level map. */
function fakeDist(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-test-dist-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>%APP_BRAND%</title>');
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'console.log("app");\n');
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js.map'), '{"version":3,"sources":["src/main.tsx"],"mappings":""}');
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.css.map'), '{"version":3,"sources":["src/app.css"],"mappings":""}');
  fs.writeFileSync(path.join(dir, 'sw.js.map'), '{"version":3,"sources":["src/sw.ts"],"mappings":""}');
  return dir;
}

/** What NODE_ENV=production requires besides (real providers, SMTP); nothing is contacted here. */
const PRODUCTION_ENV = {
  NODE_ENV: 'production',
  SMTP_URL: 'smtp://127.0.0.1:9',
  CARD_PROVIDER: 'paddle',
  PADDLE_API_KEY: 'test-key',
  PADDLE_CLIENT_TOKEN: 'test-token',
  PADDLE_WEBHOOK_SECRETS: 'test-secret',
  PADDLE_PRICE_IDS: '{"search-credits":"pri_1"}',
  CRYPTO_PROVIDER: 'nowpayments',
  NOWPAYMENTS_API_URL: 'http://127.0.0.1:9',
  NOWPAYMENTS_API_KEY: 'test-key',
  NOWPAYMENTS_IPN_SECRET: 'test-secret',
};

async function fetchAsset(server: TestServer, pathname: string) {
  const response = await fetch(`${server.url}${pathname}`, { headers: { accept: '*/*' } });
  return { status: response.status, text: await response.text() };
}

describe('source maps', () => {
  const dist = fakeDist();
  after(() => fs.rmSync(dist, { recursive: true, force: true }));

  describe('NODE_ENV=production', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ webDistDir: dist, env: PRODUCTION_ENV });
    });
    after(() => server.close());

    test('the bundle is served; its source maps answer 404', async () => {
      const bundle = await fetchAsset(server, '/assets/index-abc123.js');
      assert.equal(bundle.status, 200);
      assert.match(bundle.text, /console\.log/);
      for (const map of ['/assets/index-abc123.js.map', '/assets/index-abc123.css.map', '/assets/INDEX-abc123.js.map', '/sw.js.map']) {
        const reply = await fetchAsset(server, map);
        assert.equal(reply.status, 404, map);
        assert.doesNotMatch(reply.text, /sources/, map);
      }
      // Spellings that name the same file: still not served.
      for (const map of ['/assets/index-abc123.js%2Emap', '/assets/./index-abc123.js.map', '/assets/index-abc123.js.map?x=1']) {
        assert.notEqual((await fetchAsset(server, map)).status, 200, map);
      }
    });
  });

  describe('development (NODE_ENV unset), SERVE_SOURCE_MAPS unset', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ webDistDir: dist });
    });
    after(() => server.close());

    test('the bundle is served; its source maps answer 404', async () => {
      assert.equal((await fetchAsset(server, '/assets/index-abc123.js')).status, 200);
      for (const map of ['/assets/index-abc123.js.map', '/sw.js.map']) {
        const reply = await fetchAsset(server, map);
        assert.equal(reply.status, 404, map);
        assert.doesNotMatch(reply.text, /sources/, map);
      }
    });
  });

  describe('SERVE_SOURCE_MAPS=true', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ webDistDir: dist, env: { SERVE_SOURCE_MAPS: 'true' } });
    });
    after(() => server.close());

    test('the source maps are served, for debugging', async () => {
      assert.equal((await fetchAsset(server, '/assets/index-abc123.js')).status, 200);
      const map = await fetchAsset(server, '/assets/index-abc123.js.map');
      assert.equal(map.status, 200);
      assert.match(map.text, /src\/main\.tsx/);
    });
  });
});
