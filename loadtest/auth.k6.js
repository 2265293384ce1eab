// k6 run -e BASE_URL=http://localhost:3000 loadtest/auth.k6.js
import http from 'k6/http';
import { check } from 'k6';

export const options = {
  vus: 20,
  duration: '30s',
  thresholds: { http_req_duration: ['p(95)<50'], http_req_failed: ['rate<0.01'] },
};

const base = __ENV.BASE_URL || 'http://localhost:3000';

export default function () {
  const ready = http.get(`${base}/readyz`);
  check(ready, { 'ready 200': (r) => r.status === 200 });
  // 401 is the expected answer without a cookie; it still exercises routing and the DB-free path.
  const refresh = http.post(`${base}/authentication/refresh`, null, { responseCallback: http.expectedStatuses(401) });
  check(refresh, { 'refresh 401': (r) => r.status === 401 });
}
