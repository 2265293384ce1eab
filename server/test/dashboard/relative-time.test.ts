/**
 * The dashboard's pure text helpers (web/src/lib): relative time with its documented
 * thresholds, past and future, and capitalise.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { relativeTime } from '../../../web/src/lib/relative-time';
import { capitalise } from '../../../web/src/lib/capitalise';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const ago = (seconds: number) => relativeTime(new Date(NOW - seconds * 1000), NOW);

describe('relativeTime', () => {
  test('Just Now up to 60 s ago, Soon up to 60 s ahead', () => {
    assert.equal(ago(0), 'Just Now');
    assert.equal(ago(59), 'Just Now');
    assert.equal(ago(59.999), 'Just Now');
    assert.equal(ago(-0.5), 'Soon');
    assert.equal(ago(-30), 'Soon');
    assert.equal(ago(-59.999), 'Soon');
  });

  test('the future in the same units: From Now', () => {
    assert.equal(ago(-60), '1 Minute From Now');
    assert.equal(ago(-2 * 3_600), '2 Hours From Now');
    assert.equal(ago(-3 * 604_800), '3 Weeks From Now');
    assert.equal(ago(-86_400 * 400), '1 Year From Now');
    assert.equal(ago(-(2000 * 31_104_000 + 1)), 'N/A');
  });

  test('each unit from its threshold, singular and plural, whole units rounded down', () => {
    const rows: [number, string][] = [
      [60, '1 Minute Ago'],
      [119, '1 Minute Ago'],
      [120, '2 Minutes Ago'],
      [3_599, '59 Minutes Ago'],
      [3_600, '1 Hour Ago'],
      [7_199, '1 Hour Ago'],
      [86_399, '23 Hours Ago'],
      [86_400, '1 Day Ago'],
      [6 * 86_400, '6 Days Ago'],
      [604_799, '6 Days Ago'],
      [604_800, '1 Week Ago'],
      [2_591_999, '4 Weeks Ago'],
      [2_592_000, '1 Month Ago'],
      [31_103_999, '11 Months Ago'],
      [31_104_000, '1 Year Ago'],
      [365 * 86_400, '1 Year Ago'],
      [2 * 31_104_000, '2 Years Ago'],
      [2000 * 31_104_000, '2000 Years Ago'],
    ];
    for (const [seconds, label] of rows) assert.equal(ago(seconds), label, `${seconds} s`);
  });

  test('N/A past 2000 years, and for missing or invalid dates', () => {
    assert.equal(ago(2000 * 31_104_000 + 1), 'N/A');
    assert.equal(relativeTime(new Date(-8.64e15), NOW), 'N/A');
    assert.equal(relativeTime(null, NOW), 'N/A');
    assert.equal(relativeTime(undefined, NOW), 'N/A');
    assert.equal(relativeTime('', NOW), 'N/A');
    assert.equal(relativeTime('not a date', NOW), 'N/A');
    assert.equal(relativeTime(new Date(Number.NaN), NOW), 'N/A');
  });

  test('accepts ISO strings, epoch milliseconds and Dates; now defaults to the clock', () => {
    assert.equal(relativeTime('2026-11-23T11:55:00Z', NOW), '5 Minutes Ago');
    assert.equal(relativeTime(NOW - 3 * 3_600_000, NOW), '3 Hours Ago');
    assert.equal(relativeTime(new Date(NOW - 2 * 604_800_000), new Date(NOW)), '2 Weeks Ago');
    assert.equal(relativeTime(new Date(Date.now() - 10 * 86_400_000)), '1 Week Ago');
  });
});

describe('capitalise', () => {
  test('the first character of every word upper-cased, the rest as written', () => {
    assert.equal(capitalise('search-credits'), 'Search-credits');
    assert.equal(capitalise('whois-credits'), 'Whois-credits');
    assert.equal(capitalise('monitoring'), 'Monitoring');
    assert.equal(capitalise('already Capital'), 'Already Capital');
    assert.equal(capitalise('iPHONE'), 'IPHONE');
    assert.equal(capitalise('éclair'), 'Éclair');
    assert.equal(capitalise('1st place'), '1st Place');
    assert.equal(capitalise('hashed password'), 'Hashed Password');
    assert.equal(capitalise('two  spaces\tand tab'), 'Two  Spaces\tAnd Tab');
    assert.equal(capitalise(''), '');
    assert.equal(capitalise('𝒶bc'), '𝒶bc', 'an astral first character is kept whole');
  });
});
