// Dashboard sign-in and search: each VU signs in as one of the fixtures' users (from a
// new client address each time, so the per-address sign-in throttle of a burst of 20 then
// one per 3 s is not what is measured), then runs SEARCHES exact email searches with the
// access token. Expect zero 429, zero 4xx, zero 5xx.
//
//   k6 run -e BASE_URL=http://127.0.0.1:3000 -e FIXTURES=/tmp/lw-k6/fixtures.json loadtest/dashboard.k6.js
import http from 'k6/http';
import exec from 'k6/execution';
import { check } from 'k6';
import { BASE_URL, DURATION_S, address, fixtures, tally } from './k6/common.js';
import { packLogin, packSearch } from './k6/pack.js';

const searches = Number(__ENV.SEARCHES || 10);

export const options = {
  scenarios: {
    // One VU per user: a user's searches run one at a time, as in a browser.
    dashboard: { executor: 'constant-vus', vus: Number(__ENV.VUS || fixtures.users.length), duration: `${DURATION_S}s` },
  },
  thresholds: {
    answers_429: ['count==0'],
    answers_4xx_other: ['count==0'],
    answers_5xx: ['count==0'],
    'http_req_duration{name:sign-in}': ['p(99)<2000'],
    'http_req_duration{name:search}': ['p(99)<1000'],
  },
};

export default function () {
  const user = fixtures.users[(exec.vu.idInTest - 1) % fixtures.users.length];
  const login = http.post(`${BASE_URL}/authentication/login`, JSON.stringify(packLogin({ email: user.email, password: user.password, remember: false })), {
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': address(2, exec.scenario.iterationInTest % 65536) },
    tags: { name: 'sign-in' },
  });
  tally(login);
  if (!check(login, { 'signed in': (r) => r.status === 200 })) return;
  const token = login.json('auth_token');
  for (let i = 0; i < searches; i++) {
    const email = fixtures.emails[(exec.scenario.iterationInTest * searches + i) % fixtures.emails.length];
    const res = http.post(`${BASE_URL}/search`, JSON.stringify(packSearch({ query: email, type: 'email' })), {
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      tags: { name: 'search' },
    });
    tally(res);
    check(res, { 'search 200': (r) => r.status === 200 });
  }
}
