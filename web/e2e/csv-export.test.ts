/**
 * The dashboard's CSV exports (web/src/features/search/lib/csv.ts and the monitoring
 * report's, built on it): formulas neutralised, every character kept,
 * commas and line breaks inside their quoted cell, numbered columns (from 1
 * for search, from 0 for reports), and the report file name.
 * (Here rather than in server/test: csv.ts touches the DOM to download, which the server
 * project does not type; these run with the browser tests, no browser needed.)
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanCell, toCsv } from '../src/features/search/lib/csv';
import { reportCsv, reportCsvName, reportRows } from '../src/features/monitoring/lib/report-csv';
import type { Report } from '../src/features/monitoring/api/monitoring-api';
import { parseCsv } from './support/csv';

describe('cleanCell', () => {
  test('a formula at the start is neutralised', () => {
    for (const value of ['=1+1', '+1', '-1', '@SUM(A1)', '\t=1']) assert.equal(cleanCell(value), `'${value}`);
  });

  // A newline before the formula must not hide it from the check.
  test('regression: a newline, CR or whitespace before = + - @ is neutralised', () => {
    assert.equal(cleanCell('\n=HYPERLINK("http://evil.example","x")'), `'\n=HYPERLINK("http://evil.example","x")`);
    assert.equal(cleanCell('\r\n+1'), "'\r\n+1");
    assert.equal(cleanCell('\rtext'), "'\rtext");
    assert.equal(cleanCell('  -2'), "'  -2");
    assert.equal(cleanCell(' \t@cmd'), "' \t@cmd");
    assert.equal(cleanCell('\u00a0=1'), "'\u00a0=1");
  });

  // An export is a copy of the data: no comma removed, no line break turned into a space.
  test('ordinary values pass unchanged, commas and line breaks included', () => {
    assert.equal(cleanCell('alice@example.com'), 'alice@example.com');
    assert.equal(cleanCell('Doe, John'), 'Doe, John');
    assert.equal(cleanCell('1 Main St, Springfield, ST'), '1 Main St, Springfield, ST');
    assert.equal(cleanCell('Line one\nLine two'), 'Line one\nLine two');
    assert.equal(cleanCell('a=b'), 'a=b');
    assert.equal(cleanCell(' x'), ' x');
  });
});

describe('toCsv', () => {
  const records = [
    { id: '1', email: ['a@x.com', 'b@x.com'], name: '\n=cmd', primary_field: 'email' },
    { id: '2', email: ['c@x.com'], password: 'p,w', address: '1 Main St, Springfield, ST\r\nUSA "home"' },
  ];

  test('search numbers list columns from 1; a reader gets every character back', () => {
    const csv = toCsv(records);
    assert.equal(
      csv,
      '"id","email_1","email_2","name","password","address"\r\n' +
        `"1","a@x.com","b@x.com","'\n=cmd","",""\r\n` +
        '"2","c@x.com","","","p,w","1 Main St, Springfield, ST\r\nUSA ""home"""\r\n',
    );
    assert.deepEqual(parseCsv(csv), [
      ['id', 'email_1', 'email_2', 'name', 'password', 'address'],
      ['1', 'a@x.com', 'b@x.com', "'\n=cmd", '', ''],
      ['2', 'c@x.com', '', '', 'p,w', '1 Main St, Springfield, ST\r\nUSA "home"'],
    ]);
  });

  test('reports number from 0', () => {
    const [header] = toCsv(records, { firstIndex: 0 }).split('\r\n');
    assert.equal(header, '"id","email_0","email_1","name","password","address"');
  });
});

describe('report CSV', () => {
  const report: Report = {
    id: '42',
    created: '2026-11-23T10:00:00Z',
    database_name: 'Well',
    results: 3,
    values_hidden: false,
    records: [
      {
        task_type: 'email',
        task_value: 'alice@example.com',
        key: 'email',
        value: 'alice@example.com',
        results_count: 2,
        data: [
          { id: 'r1', email: ['alice@example.com', 'alt@example.com'], password: '=HYPERLINK("x")', database_name: 'Well' },
          { id: 'r2', email: ['alice@example.com'], database_name: 'Well' },
        ],
      },
      { task_type: 'username', task_value: 'alice_w', key: 'username', value: 'alice_w', results_count: 1, data: [{ id: 'r3', username: 'alice_w' }] },
    ],
  };

  test('one row per entry, led by its task, lists flattened from index 0, formulas neutralised', () => {
    assert.equal(reportRows(report).length, 3);
    const [header, first, second, third, ...rest] = reportCsv(report).trimEnd().split('\r\n');
    assert.deepEqual(rest, []);
    assert.equal(header, '"task_type","task_value","id","email_0","email_1","password","database_name","username"');
    assert.equal(first, `"email","alice@example.com","r1","alice@example.com","alt@example.com","'=HYPERLINK(""x"")","Well",""`);
    assert.equal(second, '"email","alice@example.com","r2","alice@example.com","","","Well",""');
    assert.equal(third, '"username","alice_w","r3","","","","","alice_w"');
  });

  test('named from the breach id and a timestamp', () => {
    const when = new Date(2026, 10, 23, 9, 5, 7);
    assert.equal(reportCsvName('42', when), 'breach-42-2026-11-23T09-05-07.csv');
    assert.equal(reportCsvName('../x y', when), 'breach-xy-2026-11-23T09-05-07.csv');
  });
});
