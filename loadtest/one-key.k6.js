// One key hammered by 100 clients (VUS): every request above the bucket gets 429 with
// Retry-After, and the key gets RATE × DURATION_S + BURST answers (± one second's worth).
// Each VU has its own client address, so the key's bucket is what refuses.
//
//   k6 run -e BASE_URL=http://127.0.0.1:3000 -e FIXTURES=/tmp/lw-k6/fixtures.json loadtest/one-key.k6.js
import http from 'k6/http';
import exec from 'k6/execution';
import { BASE_URL, BURST, DURATION_S, RATE, address, fixtures, tally } from './k6/common.js';

const expected = RATE * DURATION_S + BURST;

export const options = {
  scenarios: {
    one_key: { executor: 'constant-vus', vus: Number(__ENV.VUS || 100), duration: `${DURATION_S}s`, gracefulStop: '5s' },
  },
  thresholds: {
    answers_2xx: [`count>=${expected - RATE}`, `count<=${expected + RATE}`],
    answers_429: ['count>0'],
    answers_429_without_retry_after: ['count==0'],
    answers_4xx_other: ['count==0'],
    answers_5xx: ['count==0'],
  },
};

// 429 is an expected answer here: it does not count in http_req_failed.
http.setResponseCallback(http.expectedStatuses({ min: 200, max: 299 }, 429));

export default function () {
  const res = http.post(`${BASE_URL}/v2/search`, JSON.stringify({ query: fixtures.query, size: 20 }), {
    headers: { 'Content-Type': 'application/json', [fixtures.apiKeyHeader]: fixtures.oneKey, 'X-Forwarded-For': address(3, exec.vu.idInTest) },
  });
  tally(res);
}
