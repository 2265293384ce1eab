/**
 * Runnable samples of the Breach API v3 and Pwned Passwords page, in Python (standard
 * library only), Node.js and cURL: each complete, to copy, save and run. The base URL and
 * the key are the caller's. server/test/dashboard/breach-api-docs-samples.test.ts runs them
 * against a test server. No React here: the test imports this module.
 */
import { LANGUAGES, type Language } from '../../../lib/api-samples';

/** The page's languages: the service's clients are scripts and shell one-liners. */
export type BreachLanguage = Exclude<Language, 'golang'>;
export const BREACH_LANGUAGES = LANGUAGES.filter((option): option is (typeof LANGUAGES)[number] & { id: BreachLanguage } => option.id !== 'golang');

/** The service's key header. */
export const V3_KEY_HEADER = 'hibp-api-key';
/** What the samples send as user-agent: a name for the calling application (required under /api/v3). */
export const SAMPLE_USER_AGENT = 'example-breach-checker/1.0';

export interface BreachSampleContext {
  baseUrl: string;
  key: string;
}

/** One GET of /api/v3 as its sample sends it. */
export interface V3Request {
  /** Path and query under the base URL, as sent: /api/v3/breach/Example. */
  path: string;
  /** Whether the call needs the hibp-api-key header. */
  keyed: boolean;
  /** What the sample prints for a 404, when 404 means "nothing found" ("[]" or "{}"). */
  notFound?: '[]' | '{}';
}

/** A range call: a password's SHA-1, or an NTLM hash, checked by its first 5 characters. */
export interface RangeRequest {
  mode: 'sha1' | 'ntlm';
}

/** The password the range samples check, and its hashes (upper-case hex). */
export const SAMPLE_PASSWORD = 'P@ssw0rd';
export const SAMPLE_SHA1 = '21BD12DC183F740EE76F27B78EB39C8AD972A757';
export const SAMPLE_NTLM = 'E19CCF75EE54E06B06A5907AF13CEF42';

/** A value inside a single-quoted shell word. */
const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
/** A value as a JSON / JavaScript / Python double-quoted string. */
const dq = (value: string) => JSON.stringify(value);

const fileOf = (path: string) => path.split('?')[0]!.split('/').filter(Boolean)[2] ?? 'call';

function headersOf(request: V3Request, key: string): [string, string][] {
  return [...(request.keyed ? [[V3_KEY_HEADER, key] as [string, string]] : []), ['user-agent', SAMPLE_USER_AGENT]];
}

function pythonV3(url: string, headers: [string, string][], request: V3Request, file: string): string {
  const notFound = request.notFound
    ? `    if error.code == 404:  # nothing found: not an error
        answer = json.loads(${dq(request.notFound)})
    else:
        raise SystemExit(f"{error.code}: {error.read().decode()}")`
    : '    raise SystemExit(f"{error.code}: {error.read().decode()}")';
  return `# Python 3, standard library only; save as ${file}.py and run: python3 ${file}.py
import json
import urllib.error
import urllib.request

request = urllib.request.Request(
    ${dq(url)},
    headers={${headers.map(([name, value]) => `${dq(name)}: ${dq(value)}`).join(', ')}},
)
try:
    with urllib.request.urlopen(request, timeout=30) as response:
        answer = json.load(response)
except urllib.error.HTTPError as error:
${notFound}
print(json.dumps(answer, indent=2))
`;
}

function nodeV3(url: string, headers: [string, string][], request: V3Request, file: string): string {
  const notFound = request.notFound
    ? `if (response.status === 404) {
  // Nothing found: not an error.
  console.log(${dq(request.notFound)});
} else `
    : '';
  return `// Node.js 18 or later; save as ${file}.mjs and run: node ${file}.mjs
const response = await fetch(${dq(url)}, {
  headers: { ${headers.map(([name, value]) => `${dq(name)}: ${dq(value)}`).join(', ')} },
});
const text = await response.text();
${notFound}if (!response.ok) {
  console.error(\`\${response.status}: \${text}\`);
  process.exit(1);
} else {
  console.log(JSON.stringify(JSON.parse(text), null, 2));
}
`;
}

/** A GET of /api/v3: prints the JSON answer; a 404 that means "nothing found" prints the empty answer. */
export function v3Sample(language: BreachLanguage, { baseUrl, key }: BreachSampleContext, request: V3Request): string {
  const url = `${baseUrl}${request.path}`;
  const headers = headersOf(request, key);
  const file = fileOf(request.path);
  switch (language) {
    case 'python':
      return pythonV3(url, headers, request, file);
    case 'nodejs':
      return nodeV3(url, headers, request, file);
    case 'curl':
      return `# --fail-with-body: an error status makes curl exit non-zero, printing the status (a 404 has an empty body)
curl -sS --fail-with-body ${shellQuote(url)} \\
${headers.map(([name, value]) => `  -H ${shellQuote(`${name}: ${value}`)}`).join(' \\\n')}
`;
  }
}

const RANGE_INPUT = {
  sha1: {
    python: `password = ${dq(SAMPLE_PASSWORD)}
digest = hashlib.sha1(password.encode("utf-8")).hexdigest().upper()`,
    nodejs: `const password = ${dq(SAMPLE_PASSWORD)};
const digest = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();`,
  },
  ntlm: {
    python: `# An NTLM hash as a Windows domain stores it (MD4 of the UTF-16LE password): here, of ${SAMPLE_PASSWORD}.
digest = ${dq(SAMPLE_NTLM)}.upper()`,
    nodejs: `// An NTLM hash as a Windows domain stores it (MD4 of the UTF-16LE password): here, of ${SAMPLE_PASSWORD}.
const digest = ${dq(SAMPLE_NTLM)}.toUpperCase();`,
  },
};

/**
 * A range check: only the first 5 characters of the hash are sent, with Add-Padding; the
 * answer's lines are compared here. Python and Node.js print how often the hash is known;
 * cURL prints the answer as it comes.
 */
export function rangeSample(language: BreachLanguage, { baseUrl }: BreachSampleContext, { mode }: RangeRequest): string {
  const query = mode === 'ntlm' ? '?mode=ntlm' : '';
  const file = mode === 'ntlm' ? 'range-ntlm' : 'range';
  switch (language) {
    case 'python':
      return `# Python 3, standard library only; save as ${file}.py and run: python3 ${file}.py
${mode === 'sha1' ? 'import hashlib\n' : ''}import urllib.request

${RANGE_INPUT[mode].python}
prefix, suffix = digest[:5], digest[5:]
request = urllib.request.Request(
    ${dq(`${baseUrl}/range/`)} + prefix + ${dq(query)},
    headers={"Add-Padding": "true", "user-agent": ${dq(SAMPLE_USER_AGENT)}},
)
with urllib.request.urlopen(request, timeout=30) as response:
    lines = response.read().decode("ascii").split("\\r\\n")
count = 0
for line in lines:
    candidate, _, seen = line.partition(":")
    if candidate == suffix:
        count = int(seen)  # padding lines have count 0
print(f"Seen {count} times")
`;
    case 'nodejs':
      return `// Node.js 18 or later; save as ${file}.mjs and run: node ${file}.mjs
${mode === 'sha1' ? "import { createHash } from 'node:crypto';\n\n" : ''}${RANGE_INPUT[mode].nodejs}
const prefix = digest.slice(0, 5);
const suffix = digest.slice(5);
const response = await fetch(${dq(`${baseUrl}/range/`)} + prefix + ${dq(query)}, {
  headers: { 'Add-Padding': 'true', 'user-agent': ${dq(SAMPLE_USER_AGENT)} },
});
if (!response.ok) {
  console.error(\`\${response.status}: \${await response.text()}\`);
  process.exit(1);
}
let count = 0;
for (const line of (await response.text()).split('\\r\\n')) {
  const [candidate, seen] = line.split(':');
  if (candidate === suffix) count = Number(seen); // padding lines have count 0
}
console.log(\`Seen \${count} times\`);
`;
    case 'curl': {
      const prefix = (mode === 'ntlm' ? SAMPLE_NTLM : SAMPLE_SHA1).slice(0, 5);
      const what = mode === 'ntlm' ? `the NTLM hash of ${SAMPLE_PASSWORD}` : `the SHA-1 of ${SAMPLE_PASSWORD}`;
      return `# ${prefix}: the first 5 characters of ${what}
curl -sS ${shellQuote(`${baseUrl}/range/${prefix}${query}`)} \\
  -H 'Add-Padding: true' \\
  -H ${shellQuote(`user-agent: ${SAMPLE_USER_AGENT}`)}
`;
    }
  }
}

/**
 * The service's own npm client (`hibp`) pointed at this server: its `baseUrl` option is
 * the only change. Prints the breaches of the sample account and the sample password's count.
 */
export function hibpClientSample({ baseUrl, key }: BreachSampleContext): string {
  return `// Node.js 20 or later, with the hibp package (npm install hibp); save as hibp-client.mjs and run: node hibp-client.mjs
import { breachedAccount, pwnedPassword } from 'hibp';

const breaches = await breachedAccount('name@example.com', {
  apiKey: ${dq(key)},
  baseUrl: ${dq(`${baseUrl}/api/v3`)},
  userAgent: ${dq(SAMPLE_USER_AGENT)},
  truncate: false,
});
console.log(\`Breaches: \${(breaches ?? []).map((breach) => breach.Name).join(', ') || 'none'}\`);

const seen = await pwnedPassword(${dq(SAMPLE_PASSWORD)}, { baseUrl: ${dq(baseUrl)}, addPadding: true, userAgent: ${dq(SAMPLE_USER_AGENT)} });
console.log(\`${SAMPLE_PASSWORD} seen \${seen} times\`);
`;
}
