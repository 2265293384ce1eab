import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  WHOIS_MESSAGES,
  checkDomain,
  checkIp,
  checkWhoisQuery,
  domainAgeDays,
  formatReverseWhoisQuery,
  hasData,
  parseReverseWhoisQuery,
  toolOfV2Type,
  v2TypeOfTool,
  whoisCost,
} from '../../src/common/whois-rules';
import { ObfuscationError, packWhois, unpackWhois } from '../../src/common/obfuscation';
import { reverseName, subtreeRange } from '../../src/whois/names';
import { contentHashOf, searchTextOf } from '../../src/whois/snapshots';

test('domains: lower-cased, final dot dropped, IDN to punycode, the documented messages otherwise', () => {
  assert.deepEqual(checkDomain(' Example.TEST. '), { ok: true, value: 'example.test' });
  assert.deepEqual(checkDomain('bücher.example'), { ok: true, value: 'xn--bcher-kva.example' });
  assert.deepEqual(checkDomain(''), { ok: false, message: WHOIS_MESSAGES.emptyQuery });
  for (const bad of ['example', 'exa mple.test', '-a.test', 'a.t', 'a.123', 'http://a.test', 'a@b.test', 'a..test']) {
    assert.deepEqual(checkDomain(bad), { ok: false, message: WHOIS_MESSAGES.invalidDomain }, bad);
  }
});

test('IPs: v4 as typed, v6 canonical, others refused', () => {
  assert.deepEqual(checkIp('192.0.2.1'), { ok: true, value: '192.0.2.1' });
  assert.deepEqual(checkIp('2001:DB8:0:0::1'), { ok: true, value: '2001:db8::1' });
  assert.deepEqual(checkIp(' '), { ok: false, message: WHOIS_MESSAGES.emptyLookup });
  assert.deepEqual(checkIp('256.1.1.1'), { ok: false, message: WHOIS_MESSAGES.invalidIp });
  assert.deepEqual(checkIp('example.test'), { ok: false, message: WHOIS_MESSAGES.invalidIp });
});

test("reverse WHOIS form mode:include:exclude, 4 terms a side, 'Can't run empty query'", () => {
  const parsed = parseReverseWhoisQuery('historic: Acme , acme,Example Org:spam');
  assert.deepEqual(parsed, { ok: true, value: { mode: 'historic', include: ['acme', 'example org'], exclude: ['spam'] } });
  assert.equal(formatReverseWhoisQuery({ mode: 'current', include: ['a', 'b'], exclude: [] }), 'current:a,b:');
  assert.deepEqual(parseReverseWhoisQuery('current: , :'), { ok: false, message: WHOIS_MESSAGES.emptyReverseWhois });
  assert.deepEqual(parseReverseWhoisQuery('current:a,b,c,d,e:'), { ok: false, message: WHOIS_MESSAGES.tooManyTerms });
  assert.deepEqual(parseReverseWhoisQuery('later:a:'), { ok: false, message: WHOIS_MESSAGES.invalidMode });
  assert.equal(checkWhoisQuery('reverse_mx', '').ok, false);
  assert.deepEqual(checkWhoisQuery('reverse_ns', 'NS1.Example.test'), { ok: true, value: { tool: 'reverse_ns', host: 'ns1.example.test' } });
});

test('costs, type names and domain age', () => {
  assert.equal(whoisCost('whois_history'), 25);
  assert.equal(whoisCost('reverse_ip'), 1);
  assert.equal(toolOfV2Type('subdomain-scan'), 'subdomain_scan');
  assert.equal(v2TypeOfTool('whois_history'), 'whois-history');
  assert.equal(domainAgeDays('2020-01-01T00:00:00Z', new Date('2020-01-11T12:00:00Z')), 10);
  assert.equal(domainAgeDays('not a date'), null);
});

test('hasData, the charging rule: a record without WHOIS data or an empty list is free; a redacted record is not', () => {
  const record = (fields: object) => ({ domainName: 'example.test', domainAvailability: 'UNAVAILABLE' as const, ...fields });
  assert.equal(hasData('whois', record({ domainAvailability: 'AVAILABLE', dataError: 'MISSING_WHOIS_DATA' })), false);
  assert.equal(hasData('whois', record({ domainAvailability: 'UNDETERMINED', dataError: 'MISSING_WHOIS_DATA' })), false);
  assert.equal(hasData('whois', record({ registrarName: 'Redacting Registrar', dataError: 'MASKED_WHOIS_DATA' })), true);
  assert.equal(hasData('whois', record({ registrarName: 'Example Registrar' })), true);
  assert.equal(hasData('whois_history', { recordsCount: 0, records: [] }), false);
  assert.equal(hasData('reverse_whois', { domainsCount: 0, domainsList: [] }), false);
  assert.equal(hasData('reverse_ip', { current_page: '0', size: 0, result: [] }), false);
  assert.equal(hasData('reverse_ns', { current_page: '0', size: 1, result: [{ name: 'example.test', first_seen: 1, last_visit: 2 }] }), true);
  assert.equal(hasData('subdomain_scan', { search: 'example.test', result: { count: 0, records: [] } }), false);
});

test('POST /whois token round-trips and a tampered one is refused', () => {
  const fields = packWhois({ searchType: 'whois', query: 'example.test' });
  assert.notEqual(fields.query, 'example.test');
  assert.deepEqual(unpackWhois(fields), { searchType: 'whois', query: 'example.test' });
  assert.throws(() => unpackWhois({ ...fields, search_type: 'reverse_ip' }), ObfuscationError);
});

test('reversed names and snapshot content', () => {
  assert.equal(reverseName('www.example.test'), 'test.example.www');
  assert.deepEqual(subtreeRange('Example.test.'), { low: 'test.example.', high: 'test.example/' });
  const record = { domainName: 'example.test', domainAvailability: 'UNAVAILABLE' as const, registrarName: 'Example Registrar', registrant: { organization: 'Acme Ltd', email: 'Owner@Acme.test' } };
  assert.equal(searchTextOf(record), 'example registrar\nacme ltd\nowner@acme.test');
  assert.deepEqual(contentHashOf({ ...record, estimatedDomainAge: 5 }), contentHashOf({ ...record, estimatedDomainAge: 9 }));
  assert.notDeepEqual(contentHashOf(record), contentHashOf({ ...record, registrarName: 'Other' }));
});
