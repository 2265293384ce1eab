/**
 * Writes web/src/generated/api-reference.json from the route schemas (scripts/lib/api-reference.ts
 * says why a committed file). Run after changing a documented route's schema:
 *   node --import tsx scripts/api-reference.ts
 * The app is built as the tests build it (a test database: TEST_DATABASE_URL, else an
 * embedded PostgreSQL), since some features read the database while they register.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiReference, referenceText, type OpenApiDocument } from './lib/api-reference';
import { startTestServer, stopTestDatabaseServer } from '../server/test/support/harness';

const REFERENCE_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../web/src/generated/api-reference.json');

const server = await startTestServer();
try {
  const reference = apiReference(server.runtime.app.swagger() as unknown as OpenApiDocument);
  fs.mkdirSync(path.dirname(REFERENCE_FILE), { recursive: true });
  fs.writeFileSync(REFERENCE_FILE, referenceText(reference));
  console.log(`${path.relative(process.cwd(), REFERENCE_FILE)}: ${Object.keys(reference).length} calls`);
} finally {
  await server.close();
  await stopTestDatabaseServer();
}
