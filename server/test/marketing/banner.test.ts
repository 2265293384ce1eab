/**
 * The marketing banner: GET /marketing/banner without auth before and
 * after the operator's banner:set and banner:clear (the real admin CLI), its ETag, and the
 * markup allow-list (common/banner-markup.ts) against hostile input.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../support/harness';
import { call } from '../support/helpers';
import { parseBannerMarkup, safeHref, sanitiseBannerMarkup, type BannerNode } from '../../src/common/banner-markup';
import { bannerMarkupProblem } from '../../src/marketing/banner-service';
import { cliArgs } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('banner markup allow-list', () => {
  const cases: [input: string, expected: string][] = [
    // Allowed tags pass; text is escaped on the way out.
    ['Big <b>sale</b>: <i>50%</i> &amp; <em>more</em>', 'Big <b>sale</b>: <i>50%</i> &amp; <em>more</em>'],
    ['<strong>S</strong><u>U</u><span>s</span><p>p</p>one<br>two<br/>', '<strong>S</strong><u>U</u><span>s</span><p>p</p>one<br>two<br>'],
    // Scripts and their content go; so do handlers, and images with them.
    ['<script>window.__pwned=2</script>after', 'after'],
    ['<SCRIPT type="text/javascript">alert(1)</SCRIPT >x', 'x'],
    ['<script>document.write("</scr"+"ipt><b>x</b>")</script>y', 'y'],
    ['<img src=x onerror=window.__pwned=1>after', 'after'],
    ['<b onclick="alert(1)" onmouseover=alert(1) style="color:red" class=x>bold</b>', '<b>bold</b>'],
    ['<span/onmouseover=alert(1)>s</span>', '<span>s</span>'],
    // Links: http(s) only, normalised, opened apart.
    ['<a href="https://example.com/x?a=1&amp;b=2">go</a>', '<a href="https://example.com/x?a=1&amp;b=2" rel="noopener noreferrer" target="_blank">go</a>'],
    ['<a href="HTTP://Example.COM" target="_self" rel="opener">go</a>', '<a href="http://example.com/" rel="noopener noreferrer" target="_blank">go</a>'],
    ['<a href="javascript:alert(1)">x</a>', '<a>x</a>'],
    ['<a href="  JaVaScRiPt:alert(1)">x</a>', '<a>x</a>'],
    ['<a href="java\tscript:alert(1)">x</a>', '<a>x</a>'],
    ['<a href="java&#x09;script:alert(1)">x</a>', '<a>x</a>'],
    ['<a href="&#106;avascript:alert(1)">x</a>', '<a>x</a>'],
    ['<a href="data:text/html,<script>alert(1)</script>">x</a>', '<a>x</a>'],
    ['<a href="vbscript:x">x</a><a href="/relative">r</a><a href="//evil.example">p</a><a>none</a>', '<a>x</a><a>r</a><a>p</a><a>none</a>'],
    ['<a href=\'https://e.com/"onmouseover=alert(1)\'>q</a>', '<a href="https://e.com/%22onmouseover=alert(1)" rel="noopener noreferrer" target="_blank">q</a>'],
    // Foreign content and other containers of code go with their content.
    ['<svg onload=alert(1)><script>alert(1)</script><b>in</b></svg>out', 'out'],
    ['<svg><svg></svg><b>still inside</b></svg>out', 'out'],
    ['<math><mi xlink:href="javascript:alert(1)">m</mi></math>ok', 'ok'],
    ['<style>b{color:red}</style><iframe src="https://evil.example"></iframe><object data=x></object>ok', 'ok'],
    ['<template><img src=x onerror=alert(1)></template><noscript><b>n</b></noscript>ok', 'ok'],
    // Other tags are unwrapped: their text stays, as text.
    ['<div><font color=red>text</font></div><marquee>m</marquee>', 'textm'],
    ['<scr<script>ipt>alert(1)</script>', 'ipt&gt;alert(1)'],
    // Nesting is repaired; unclosed tags are closed; stray end tags ignored.
    ['<b><i>both</b> after</i>', '<b><i>both</i></b> after'],
    ['unclosed <b>bold <i>italic', 'unclosed <b>bold <i>italic</i></b>'],
    ['</b>stray</a></p>', 'stray'],
    ['<p>one<p>two', '<p>one</p><p>two</p>'],
    ['<a href="https://a.example">a<a href="https://b.example">b</a>', '<a href="https://a.example/" rel="noopener noreferrer" target="_blank">a</a><a href="https://b.example/" rel="noopener noreferrer" target="_blank">b</a>'],
    // Entities decode to text and are escaped again: they never become tags.
    ['&lt;script&gt;alert(1)&lt;/script&gt;', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['&#60;img src=x onerror=alert(1)&#62; &#x3c;b&#x3e;', '&lt;img src=x onerror=alert(1)&gt; &lt;b&gt;'],
    ['&#0; &#xD800; &bogus; &copy;', '\ufffd \ufffd &amp;bogus; ©'],
    // Not tags at all; comments and doctypes dropped; a tag that never closes (its quote runs
    // to the end) is dropped with what follows, as browsers drop a tag cut off by the end.
    ['1 < 2 > 0', '1 &lt; 2 &gt; 0'],
    ['<!-- <script>alert(1)</script> -->x<!DOCTYPE html><?php echo 1 ?>y', 'xy'],
    ['<b title="unterminated>text', ''],
    ['kept <b title="unterminated>text', 'kept '],
    ['<b title="a>b">t</b>', '<b>t</b>'],
  ];
  for (const [input, expected] of cases) {
    test(JSON.stringify(input), () => assert.equal(sanitiseBannerMarkup(input), expected));
  }

  test('the parsed tree holds only allowed tags, hrefs only on links, and http(s) hrefs only', () => {
    const hostile = cases.map(([input]) => input).join('');
    const walk = (nodes: BannerNode[], depth = 0): void => {
      for (const node of nodes) {
        if (typeof node === 'string') continue;
        assert.ok(['b', 'strong', 'i', 'em', 'u', 'br', 'p', 'span', 'a'].includes(node.tag), node.tag);
        assert.deepEqual(Object.keys(node).sort(), node.href ? ['children', 'href', 'tag'] : ['children', 'tag']);
        if (node.href) assert.equal(node.tag, 'a');
        if (node.href) assert.match(node.href, /^https?:\/\//);
        assert.ok(depth < 16);
        walk(node.children, depth + 1);
      }
    };
    walk(parseBannerMarkup(hostile).nodes);
    const deep = '<b>'.repeat(200) + 'deep' + '</b>'.repeat(200);
    walk(parseBannerMarkup(deep).nodes);
    assert.match(sanitiseBannerMarkup(deep), /deep/);
    assert.ok(sanitiseBannerMarkup('x'.repeat(5000)).length <= 2000, 'cut at the maximum length');
  });

  test('sanitising is idempotent (what is served parses to itself)', () => {
    for (const [input] of cases) {
      const once = sanitiseBannerMarkup(input);
      assert.equal(sanitiseBannerMarkup(once), once, input);
      assert.deepEqual(parseBannerMarkup(once).dropped, [], input);
    }
  });

  test('safeHref', () => {
    assert.equal(safeHref('https://example.com'), 'https://example.com/');
    assert.equal(safeHref(' https://example.com/a b'), 'https://example.com/a%20b');
    assert.equal(safeHref('mailto:x@example.com'), null);
    assert.equal(safeHref('ftp://example.com'), null);
    assert.equal(safeHref('\u0000javascript:alert(1)'), null);
    assert.equal(safeHref(''), null);
  });

  test('banner:set refuses what the allow-list would drop, naming it', () => {
    assert.equal(bannerMarkupProblem('<b>Sale</b> <a href="https://example.com">now</a>'), null);
    assert.match(bannerMarkupProblem('<script>x</script>hi')!, /<script>/);
    assert.match(bannerMarkupProblem('<b onclick=x>hi</b>')!, /onclick attribute/);
    assert.match(bannerMarkupProblem('<a href="javascript:x">hi</a>')!, /only http: and https:/);
    assert.match(bannerMarkupProblem('a<!-- note -->b')!, /comment/);
    assert.match(bannerMarkupProblem('a<!DOCTYPE html>b<?php x ?>')!, /<!…> or <\?…>/);
    assert.match(bannerMarkupProblem('Sale <a href="https://example.com>now')!, /left open at the end/);
    assert.match(bannerMarkupProblem('Sale <b')!, /left open at the end/);
    assert.match(bannerMarkupProblem('<b>'.repeat(17) + 'deep')!, /nesting deeper than 16/);
    assert.match(bannerMarkupProblem('   ')!, /empty/);
    assert.match(bannerMarkupProblem('x'.repeat(2001))!, /longer than 2000/);
  });
});

describe('GET /marketing/banner and the operator commands', () => {
  let server: TestServer;
  let cliDataDir: string;
  before(async () => {
    server = await startTestServer();
    cliDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-banner-'));
  });
  after(async () => {
    await server.close();
    fs.rmSync(cliDataDir, { recursive: true, force: true });
  });

  /** The operator CLI against the test server's database. */
  function admin(...args: string[]) {
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', DATA_DIR: cliDataDir, DATABASE_URL: server.runtime.config.DATABASE_URL! };
    return spawnSync(process.execPath, [...cliArgs('admin'), ...args], { cwd: ROOT, env, encoding: 'utf8' });
  }
  const banner = (headers: Record<string, string> = {}) => call(server.url, 'GET', '/marketing/banner', { headers });

  test('none, then set (no auth), then replaced with a new id, then cleared', async () => {
    const none = await banner();
    assert.equal(none.status, 200);
    assert.deepEqual(none.body, { id: null, data: null });
    assert.equal(none.headers.get('cache-control'), 'no-cache');

    const message = 'Spring sale: <b>50% off</b> <a href="https://example.com/sale">yearly plans</a>';
    const set = admin('banner:set', '--message', message);
    assert.equal(set.status, 0, set.stderr);
    const id = set.stdout.trim();
    assert.match(id, /^[0-9a-f-]{36}$/, 'prints the new id');

    const shown = await banner();
    assert.equal(shown.status, 200);
    assert.deepEqual(shown.body, {
      id,
      data: 'Spring sale: <b>50% off</b> <a href="https://example.com/sale" rel="noopener noreferrer" target="_blank">yearly plans</a>',
    });

    // Cache-friendly: revalidation with the ETag answers 304 while the banner is the same.
    const etag = shown.headers.get('etag')!;
    assert.ok(etag);
    assert.equal((await banner({ 'if-none-match': etag })).status, 304);

    const again = admin('banner:set', '--message', 'Second banner');
    assert.equal(again.status, 0, again.stderr);
    const second = again.stdout.trim();
    assert.notEqual(second, id, 'a new banner has a new id');
    const replaced = await banner({ 'if-none-match': etag });
    assert.equal(replaced.status, 200);
    assert.deepEqual(replaced.body, { id: second, data: 'Second banner' });

    const cleared = admin('banner:clear');
    assert.equal(cleared.status, 0, cleared.stderr);
    assert.match(cleared.stdout, /Banner cleared/);
    assert.deepEqual((await banner()).body, { id: null, data: null });
    assert.match(admin('banner:clear').stdout, /no banner/);
    const rows = await server.runtime.db.selectFrom('marketing_banners').select(['id', 'cleared_at']).execute();
    assert.ok(rows.every((row) => row.cleared_at !== null));
  });

  test('banner:set refuses hostile or empty markup (exit 2) and leaves the banner alone', async () => {
    const kept = admin('banner:set', '--message', 'Kept');
    assert.equal(kept.status, 0, kept.stderr);
    for (const [message, reason] of [
      ['<img src=x onerror=alert(1)>hi', /<img>.*onerror attribute/],
      ['<script>alert(1)</script>', /<script>/],
      ['<a href="javascript:alert(1)">x</a>', /only http: and https:/],
      ['', /empty/],
    ] as const) {
      const refused = admin('banner:set', '--message', message);
      assert.equal(refused.status, 2, message);
      assert.match(refused.stderr, reason);
    }
    assert.deepEqual((await banner()).body, { id: kept.stdout.trim(), data: 'Kept' });
  });

  test('a row written around the CLI is still served allow-listed', async () => {
    await server.runtime.db.updateTable('marketing_banners').set({ cleared_at: new Date() }).where('cleared_at', 'is', null).execute();
    const row = await server.runtime.db
      .insertInto('marketing_banners')
      .values({ markup: '<img src=x onerror=alert(1)><script>alert(2)</script><a href="javascript:alert(3)" onclick="x">hi</a>' })
      .returning('id')
      .executeTakeFirstOrThrow();
    assert.deepEqual((await banner()).body, { id: row.id, data: '<a>hi</a>' });
  });
});
