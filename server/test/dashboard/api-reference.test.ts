/**
 * The API documentation's reference part is the route schemas': the committed
 * web/src/generated/api-reference.json is what the published /openapi.json gives now (a
 * schema changed without regenerating it fails here), and every field the docs pages show
 * has a description from its schema.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { apiReference, referenceText, type OpenApiDocument } from '../../../scripts/lib/api-reference';
import { referenceFields } from '../../../web/src/lib/api-reference';
import { V1_CALLS } from '../../../web/src/features/monitoring-docs/lib/v1-calls';
import { V2_CALLS } from '../../../web/src/features/monitoring-docs/lib/v2-calls';
import { WHOIS_CALLS, WHOIS_CREDITS_CALL } from '../../../web/src/features/api-docs/lib/whois-calls';
import { startTestServer, type TestServer } from '../support/harness';
import { call } from '../support/helpers';

const REFERENCE_FILE = new URL('../../../web/src/generated/api-reference.json', import.meta.url);

describe('the generated API reference', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('the committed file is what the route schemas give now', async () => {
    const document = (await call<OpenApiDocument>(server.url, 'GET', '/openapi.json')).body;
    assert.equal(
      fs.readFileSync(REFERENCE_FILE, 'utf8'),
      referenceText(apiReference(document)),
      'web/src/generated/api-reference.json is stale: run npm run gen:api-reference',
    );
  });
});

test('every field the docs pages show is described by its schema', () => {
  const calls = [...V2_CALLS, ...V1_CALLS, ...WHOIS_CALLS, WHOIS_CREDITS_CALL];
  const rows = [...calls.flatMap((c) => (c.fields ?? []).map((row) => [c.path, ...row])), ...referenceFields('v2Search').map((row) => ['/v2/search', ...row])];
  for (const [path, name, , , description] of rows) assert.ok(description, `${path} ${name}`);
  // Each call's sample sends only fields its table documents.
  for (const c of calls) {
    const shown = new Set((c.fields ?? []).map(([name]) => name));
    for (const name of Object.keys(c.body ?? {})) assert.ok(shown.has(name), `${c.id} sends ${name}`);
  }
});
