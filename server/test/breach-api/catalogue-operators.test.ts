/**
 * The breach model as operators shape it, seen through Breach API v3 on a real server: an
 * ingest of stealer-log lines marks its well IsStealerLog by itself (the ingest command's
 * code, in this process), and `well:update` (its command table, parsed as the admin CLI
 * parses it) sets and corrects every field it owns, refusing bad values with clear errors.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseIngestArgs, runIngest } from '../../../scripts/ingest';
import { DATAWELLS_COMMANDS } from '../../src/datawells/datawells-commands';
import { UsageError, type OptionValues } from '../../src/infra/operator-commands';
import { startTestServer, stopTestDatabaseServer, type TestServer } from '../support/harness';
import { call, freshIp } from '../support/helpers';

let server: TestServer;
let dir: string;
const savedEnv = { ...process.env };

before(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-catalogue-ops-'));
  // The commands open the server's database and index as the CLIs would.
  Object.assign(process.env, { DATABASE_URL: server.runtime.config.DATABASE_URL, INDEX_DIR: server.runtime.config.indexDir, DATA_DIR: dir });
});
after(async () => {
  process.env = savedEnv;
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await stopTestDatabaseServer();
});

const model = async (name: string) => call(server.url, 'GET', `/api/v3/breach/${name}`, { ip: freshIp() });

async function ingestLines(well: string, lines: string[]) {
  const file = path.join(dir, `${well.replace(/\W/g, '')}.txt`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return runIngest(parseIngestArgs(['--well', well, '--index-dir', server.runtime.config.indexDir, file]));
}

/** `npm run admin -- NAME ARGS…`, parsed with the command's own table. */
async function admin(name: string, ...args: string[]): Promise<number> {
  const command = DATAWELLS_COMMANDS.commands.find((c) => c.name === name)!;
  const { values } = parseArgs({ args, strict: true, options: command.options });
  return command.run({ operator: 'catalogue-test' }, values as OptionValues);
}
const wellUpdate = (...args: string[]) => admin('well:update', ...args);

/** What a command printed (its text; the test runner's own binary messages pass through). */
async function output(run: () => Promise<unknown>): Promise<string> {
  const write = process.stdout.write;
  let text = '';
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (typeof chunk !== 'string') return (write as (...args: unknown[]) => boolean).call(process.stdout, chunk, ...rest);
    text += chunk;
    return true;
  }) as typeof process.stdout.write;
  try {
    await run();
  } finally {
    process.stdout.write = write;
  }
  return text;
}

describe('stealer-log wells', () => {
  test('an ingest made mostly of URL:login:password lines marks its well IsStealerLog', async () => {
    const result = await ingestLines('Stealer Dump', [
      'https://site.example/login:victim1@x.example:pw1',
      'https://shop.example:8443/account:victim2@x.example:pw2',
      'android://hash@com.app.example/:victim3:pw3',
      'plain4@x.example:pw4',
    ]);
    assert.equal(result.records, 4);
    assert.equal(result.files[0]!.stealerLines, 3, 'the engine counts the lines that began with a URL');
    const reply = await model('StealerDump');
    assert.equal(reply.status, 200);
    assert.equal(reply.body.IsStealerLog, true);
    assert.ok(reply.body.DataClasses.includes('User website URLs'));
  });

  test('a combolist with a few URL lines stays an ordinary breach', async () => {
    const result = await ingestLines('Combo Dump', ['one@x.example:pw1', 'two@x.example:pw2', 'https://site.example/:three@x.example:pw3']);
    assert.equal(result.files[0]!.stealerLines, 1);
    assert.equal((await model('ComboDump')).body.IsStealerLog, false);
  });
});

describe('well:update of the breach model', () => {
  test('sets Name, Domain, logo and every flag; the model shows them; the audit entry lists them', async () => {
    assert.equal(
      await wellUpdate(
        '--well', 'Combo Dump', '--breach-name', 'ComboList2024', '--domain', 'Shop.Example', '--logo', '/logos/combo.png',
        '--no-verified', '--fabricated', '--retired', '--spam-list', '--malware', '--subscription-free', '--stealer-log', '--sensitive',
        '--reason', 'catalogue review',
      ),
      0,
    );
    assert.equal((await model('ComboDump')).status, 404, 'the old Name is gone');
    const reply = await model('combolist2024');
    assert.equal(reply.status, 200);
    const m = reply.body;
    assert.deepEqual(
      [m.Name, m.Title, m.Domain, m.LogoPath],
      ['ComboList2024', 'Combo Dump', 'shop.example', `${server.runtime.config.publicUrl}/logos/combo.png`],
    );
    assert.deepEqual(
      [m.IsVerified, m.IsFabricated, m.IsRetired, m.IsSpamList, m.IsMalware, m.IsSubscriptionFree, m.IsStealerLog, m.IsSensitive],
      [false, true, true, true, true, true, true, true],
    );
    const audit = await server.runtime.db.selectFrom('audit_log').select(['target', 'details']).where('action', '=', 'well:update').execute();
    assert.equal(audit.length, 1);
    assert.deepEqual(Object.keys(audit[0]!.details as object).sort(), [
      'breach_name', 'domain', 'fabricated', 'logo', 'malware', 'retired', 'sensitive', 'spam-list', 'stealer-log', 'subscription-free', 'verified',
    ]);
  });

  test('well:list shows each well\'s Name, domain and the flags set', async () => {
    const listed = JSON.parse(await output(() => admin('well:list', '--json'))) as { name: string; breach_name: string; domain: string; sensitive: boolean; flags: string[] }[];
    const combo = listed.find((w) => w.name === 'Combo Dump')!;
    assert.deepEqual(
      [combo.breach_name, combo.domain, combo.sensitive, combo.flags],
      ['ComboList2024', 'shop.example', true, ['fabricated', 'retired', 'spam-list', 'malware', 'subscription-free', 'stealer-log']],
    );
    assert.deepEqual(listed.find((w) => w.name === 'Stealer Dump')!.flags, ['verified', 'stealer-log']);
    assert.match(await output(() => admin('well:list')), /^Combo Dump\n {2}records 3, .*\n {2}breach name ComboList2024, domain shop\.example, fabricated, retired/m);
  });

  test("corrects them back: --no-X, '' clears the domain and the logo; a later ingest keeps the corrections", async () => {
    await wellUpdate('--well', 'Stealer Dump', '--no-stealer-log', '--domain', 'site.example');
    await wellUpdate('--well', 'Stealer Dump', '--domain', '', '--logo', '');
    await ingestLines('Another Dump', ['a@x.example:pw']);
    const m = (await model('StealerDump')).body;
    assert.deepEqual([m.IsStealerLog, m.Domain, m.LogoPath], [false, '', '']);
  });

  test('bad values are refused with a clear message, and nothing changes', async () => {
    const refusals: [string[], RegExp][] = [
      [['--breach-name', 'Has Space'], /--breach-name must be 1 to 64 letters, digits/],
      [['--breach-name', 'x'.repeat(65)], /--breach-name must be 1 to 64/],
      [['--domain', 'not a domain'], /--domain must be a domain name/],
      [['--logo', 'https://elsewhere.example/x.png'], /--logo must be a path on this server/],
      [['--logo', '//elsewhere.example/x.png'], /--logo must be a path on this server/],
      [['--verified', '--no-verified'], /give --verified or --no-verified, not both/],
      [[], /nothing to change/],
    ];
    for (const [args, message] of refusals) {
      await assert.rejects(wellUpdate('--well', 'Stealer Dump', ...args), (e: Error) => e instanceof UsageError && message.test(e.message), args.join(' '));
    }
    // Another well's Name, in any case.
    await assert.rejects(wellUpdate('--well', 'Stealer Dump', '--breach-name', 'COMBOLIST2024'), /another data well has the breach name "COMBOLIST2024"/);
    assert.equal((await model('StealerDump')).status, 200);
    // Its own Name in another case is a correction, not a clash.
    await wellUpdate('--well', 'Stealer Dump', '--breach-name', 'STEALERDUMP');
    assert.equal((await model('stealerdump')).body.Name, 'STEALERDUMP');
  });
});
