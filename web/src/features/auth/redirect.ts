/**
 * Redirect rules between protected pages and the sign-in screen.
 *
 * A protected path travels as the `redirect` query value with its slashes turned into
 * dots (/monitoring/manage → monitoring.manage), together with the query values below.
 */

/**
 * Query values carried to the sign-in screen and back (t: the closing-account token; code:
 * an event code link opened while signed out, which would otherwise be lost).
 */
const CARRIED_PARAMS = ['p', 'q', 'ref', 'v', 't', 'code'] as const;

export const SIGN_IN_PATHS = [
  '/login',
  '/register',
  '/forgot-password',
  '/reset-password',
  '/verification',
  '/post-hoc',
  '/post-hoc-fp',
  '/post-hoc-rp',
];

function withQuery(path: string, params: URLSearchParams): string {
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

/** Where an anonymous visitor of `path` is sent: /login?redirect=…&p=…. */
export function loginPathFor(path: string, search: string): string {
  const current = new URLSearchParams(search);
  const params = new URLSearchParams();
  const redirect = path.replace(/^\/+|\/+$/g, '').replace(/\//g, '.');
  if (redirect) params.set('redirect', redirect);
  for (const name of CARRIED_PARAMS) {
    const value = current.get(name);
    if (value !== null) params.set(name, value);
  }
  return withQuery('/login', params);
}

/**
 * Where a visitor goes once signed in: the redirect value with dots turned back into
 * slashes and the carried values kept (only q for the search page), else /search.
 * Only plain path segments are accepted, so the value can never leave the site.
 */
export function pathAfterSignIn(search: string): string {
  const current = new URLSearchParams(search);
  const redirect = current.get('redirect') ?? '';
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(redirect)) return '/search';
  const path = '/' + redirect.replace(/\./g, '/');
  if (SIGN_IN_PATHS.includes(path) || path === '/logout') return '/search';
  const params = new URLSearchParams();
  for (const name of path === '/search' ? (['q'] as const) : CARRIED_PARAMS) {
    const value = current.get(name);
    if (value !== null) params.set(name, value);
  }
  return withQuery(path, params);
}

/**
 * Purchase intents recognised on the login tab, carried to the register tab as a
 * numeric ro code (sent as r03, with q as r04) and mapped back by the verification view.
 */
const RO_INTENTS: Record<string, { redirect: string; product?: string }> = {
  '1': { redirect: 'subscriptions.search' },
  '2': { redirect: 'checkout', product: 'whois-credits' },
  '3': { redirect: 'checkout', product: 'search-credits' },
  '4': { redirect: 'subscriptions.monitoring' },
  '5': { redirect: 'checkout', product: 'domain-sub-monthly' },
  '6': { redirect: 'subscriptions.whois-credits' },
  '7': { redirect: 'subscriptions.search-credits' },
};

/** The ro code for a login query, or '' when it names no purchase intent. */
export function roFromLoginQuery(search: string): string {
  const current = new URLSearchParams(search);
  const redirect = current.get('redirect');
  const product = current.get('p');
  for (const [ro, intent] of Object.entries(RO_INTENTS)) {
    if (intent.redirect === redirect && (intent.product === undefined || intent.product === product)) return ro;
  }
  return '';
}

/** The register path for a login query: /register?ro=…&q=… when there is an intent. */
export function registerPathFor(loginSearch: string): string {
  const ro = roFromLoginQuery(loginSearch);
  const params = new URLSearchParams();
  if (ro) {
    params.set('ro', ro);
    const q = new URLSearchParams(loginSearch).get('q');
    if (q) params.set('q', q);
  }
  return withQuery('/register', params);
}

/** The login path for a query holding ro and q (register tab, verification view). */
export function loginPathForRo(search: string): string {
  const current = new URLSearchParams(search);
  const intent = RO_INTENTS[current.get('ro') ?? ''];
  const params = new URLSearchParams();
  if (intent) {
    params.set('redirect', intent.redirect);
    if (intent.product) params.set('p', intent.product);
    const q = current.get('q');
    if (q) params.set('q', q);
  }
  return withQuery('/login', params);
}

/** The ro code and q value a registration carries (r03, r04). */
export function registrationIntent(search: string): { ro: string; q: string } {
  const current = new URLSearchParams(search);
  const ro = current.get('ro') ?? '';
  return { ro: ro in RO_INTENTS ? ro : '', q: current.get('q') ?? '' };
}
