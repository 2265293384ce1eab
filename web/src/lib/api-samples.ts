/**
 * Runnable samples for the public API v2. Each one is complete: copy, paste,
 * run. The key, header name and base URL are the caller's; the samples are plain text.
 */
export const LANGUAGES = [
  { id: 'python', label: 'Python' },
  { id: 'golang', label: 'Go' },
  { id: 'nodejs', label: 'Node.js' },
  { id: 'curl', label: 'cURL' },
] as const;

export type Language = (typeof LANGUAGES)[number]['id'];

export interface SampleContext {
  baseUrl: string;
  header: string;
  key: string;
}

export const KEY_PLACEHOLDER = 'YOUR_API_KEY';
export const SAMPLE_QUERY = 'email:"name@example.com"';
export const SAMPLE_PASSWORD = 'password123';

/** A value inside a single-quoted shell word. */
const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
/** A value as a JSON / JavaScript / Go / Python double-quoted string. */
const dq = (value: string) => JSON.stringify(value);

export function searchSample(language: Language, { baseUrl, header, key }: SampleContext): string {
  const url = `${baseUrl}/v2/search`;
  switch (language) {
    case 'python':
      return `import requests

response = requests.post(
    ${dq(url)},
    headers={${dq(header)}: ${dq(key)}},
    json={
        "query": ${dq(SAMPLE_QUERY)},
        "page": 1,
        "size": 100,
        "regex": False,
        "wildcard": False,
        "de_dupe": True,
    },
    timeout=30,
)
if not response.ok:
    raise SystemExit(f"{response.status_code}: {response.json().get('error')}")
print(response.json())
`;
    case 'golang':
      return `package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

func main() {
	body, _ := json.Marshal(map[string]any{
		"query":    ${dq(SAMPLE_QUERY)},
		"page":     1,
		"size":     100,
		"regex":    false,
		"wildcard": false,
		"de_dupe":  true,
	})
	request, _ := http.NewRequest("POST", ${dq(url)}, bytes.NewReader(body))
	request.Header.Set(${dq(header)}, ${dq(key)})
	request.Header.Set("Content-Type", "application/json")

	response, err := http.DefaultClient.Do(request)
	if err != nil {
		panic(err)
	}
	defer response.Body.Close()
	answer, _ := io.ReadAll(response.Body)
	fmt.Println(response.Status)
	fmt.Println(string(answer))
}
`;
    case 'nodejs':
      return `// Node.js 18 or later; save as search.mjs and run: node search.mjs
const response = await fetch(${dq(url)}, {
  method: 'POST',
  headers: {
    ${dq(header)}: ${dq(key)},
    'Content-Type': 'application/json',
  },
  body: JSON.stringify({
    query: ${dq(SAMPLE_QUERY)},
    page: 1,
    size: 100,
    regex: false,
    wildcard: false,
    de_dupe: true,
  }),
});
const answer = await response.json();
if (!response.ok) throw new Error(\`\${response.status}: \${answer.error}\`);
console.log(JSON.stringify(answer, null, 2));
`;
    case 'curl':
      return `curl -sS -X POST ${shellQuote(url)} \\
  -H ${shellQuote(`${header}: ${key}`)} \\
  -H 'Content-Type: application/json' \\
  -d ${shellQuote(JSON.stringify({ query: SAMPLE_QUERY, page: 1, size: 100, regex: false, wildcard: false, de_dupe: true }))}
`;
  }
}

export function passwordSample(language: Language, { baseUrl, header, key }: SampleContext): string {
  const url = `${baseUrl}/v2/search-password`;
  switch (language) {
    case 'python':
      return `import hashlib
import requests

hashed = hashlib.sha256(${dq(SAMPLE_PASSWORD)}.encode("utf-8")).hexdigest()
response = requests.post(
    ${dq(url)},
    headers={${dq(header)}: ${dq(key)}},
    json={"sha256_hashed_password": hashed},
    timeout=30,
)
if not response.ok:
    raise SystemExit(f"{response.status_code}: {response.json().get('error')}")
print(response.json())
`;
    case 'golang':
      return `package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

func main() {
	sum := sha256.Sum256([]byte(${dq(SAMPLE_PASSWORD)}))
	body, _ := json.Marshal(map[string]string{"sha256_hashed_password": hex.EncodeToString(sum[:])})
	request, _ := http.NewRequest("POST", ${dq(url)}, bytes.NewReader(body))
	request.Header.Set(${dq(header)}, ${dq(key)})
	request.Header.Set("Content-Type", "application/json")

	response, err := http.DefaultClient.Do(request)
	if err != nil {
		panic(err)
	}
	defer response.Body.Close()
	answer, _ := io.ReadAll(response.Body)
	fmt.Println(response.Status)
	fmt.Println(string(answer))
}
`;
    case 'nodejs':
      return `// Node.js 18 or later; save as password.mjs and run: node password.mjs
import { createHash } from 'node:crypto';

const hashed = createHash('sha256').update(${dq(SAMPLE_PASSWORD)}).digest('hex');
const response = await fetch(${dq(url)}, {
  method: 'POST',
  headers: {
    ${dq(header)}: ${dq(key)},
    'Content-Type': 'application/json',
  },
  body: JSON.stringify({ sha256_hashed_password: hashed }),
});
const answer = await response.json();
if (!response.ok) throw new Error(\`\${response.status}: \${answer.error}\`);
console.log(JSON.stringify(answer, null, 2));
`;
    case 'curl':
      return `# sha256sum is in GNU coreutils; on macOS use: shasum -a 256
HASH=$(printf '%s' ${shellQuote(SAMPLE_PASSWORD)} | sha256sum | cut -d ' ' -f 1)
curl -sS -X POST ${shellQuote(url)} \\
  -H ${shellQuote(`${header}: ${key}`)} \\
  -H 'Content-Type: application/json' \\
  -d "{\\"sha256_hashed_password\\": \\"$HASH\\"}"
`;
  }
}

export const SEARCH_RESPONSE_EXAMPLE = `{
  "balance": 99,
  "entries": [
    {
      "id": "4f1c2a9e0b7d",
      "email": ["name@example.com"],
      "username": ["name"],
      "password": ["hunter2"],
      "database_name": "Example Breach 2021"
    }
  ],
  "took": "1ms",
  "total": 1
}`;

export const PASSWORD_RESPONSE_EXAMPLE = `{
  "results_found": 3
}`;

/** One documented call: its method, its path under the base URL, and its JSON body (POST). */
export interface CallSpec {
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
}

/** A JSON value as Python source (True, False, None), indented by `pad`. */
function pythonLiteral(value: unknown, pad: string): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number' || typeof value === 'string') return JSON.stringify(value);
  const inner = `${pad}    `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${inner}${pythonLiteral(item, inner)},`).join('\n')}\n${pad}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([name, item]) => `${inner}${dq(name)}: ${pythonLiteral(item, inner)},`).join('\n')}\n${pad}}`;
}

/** A JSON object as a JavaScript object literal, indented by `pad`. */
function jsLiteral(value: unknown, pad: string): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value !== 'object') return JSON.stringify(value);
  const inner = `${pad}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${inner}${jsLiteral(item, inner)},`).join('\n')}\n${pad}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  const name = (key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : dq(key));
  return `{\n${entries.map(([key, item]) => `${inner}${name(key)}: ${jsLiteral(item, inner)},`).join('\n')}\n${pad}}`;
}

/** A JSON object as a Go `map[string]any` literal, tab-indented by `pad`. */
function goLiteral(value: unknown, pad: string): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value !== 'object') return JSON.stringify(value);
  const inner = `${pad}\t`;
  if (Array.isArray(value)) {
    return `[]any{${value.map((item) => goLiteral(item, inner)).join(', ')}}`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return 'map[string]any{}';
  return `map[string]any{\n${entries.map(([key, item]) => `${inner}${dq(key)}: ${goLiteral(item, inner)},`).join('\n')}\n${pad}}`;
}

/**
 * A complete program per language for any JSON call: send it with the caller's header and
 * key, print the JSON answer, stop with the status and the server's error otherwise.
 * A bearer API passes `{header: 'Authorization', key: 'Bearer …'}` as its context.
 */
export function callSample(language: Language, { baseUrl, header, key }: SampleContext, call: CallSpec): string {
  const url = `${baseUrl}${call.path}`;
  const body = call.method === 'POST' ? (call.body ?? {}) : undefined;
  const file = call.path.split('/').pop() || 'call';
  switch (language) {
    case 'python':
      return `import json
import requests

response = requests.${call.method.toLowerCase()}(
    ${dq(url)},
    headers={${dq(header)}: ${dq(key)}},${body ? `\n    json=${pythonLiteral(body, '    ')},` : ''}
    timeout=30,
)
if not response.ok:
    raise SystemExit(f"{response.status_code}: {response.text}")
print(json.dumps(response.json(), indent=2))
`;
    case 'golang':
      return `package main

import (${body ? '\n\t"bytes"\n\t"encoding/json"' : ''}
	"fmt"
	"io"
	"net/http"
	"os"
)

func main() {
${
  body
    ? `	body, _ := json.Marshal(${goLiteral(body, '\t')})
	request, _ := http.NewRequest("POST", ${dq(url)}, bytes.NewReader(body))
	request.Header.Set("Content-Type", "application/json")`
    : `	request, _ := http.NewRequest("GET", ${dq(url)}, nil)`
}
	request.Header.Set(${dq(header)}, ${dq(key)})

	response, err := http.DefaultClient.Do(request)
	if err != nil {
		panic(err)
	}
	defer response.Body.Close()
	answer, _ := io.ReadAll(response.Body)
	if response.StatusCode >= 300 {
		fmt.Fprintln(os.Stderr, response.Status, string(answer))
		os.Exit(1)
	}
	fmt.Println(string(answer))
}
`;
    case 'nodejs':
      return `// Node.js 18 or later; save as ${file}.mjs and run: node ${file}.mjs
const response = await fetch(${dq(url)}, {
  method: ${dq(call.method)},
  headers: {
    ${dq(header)}: ${dq(key)},${body ? `\n    'Content-Type': 'application/json',` : ''}
  },${body ? `\n  body: JSON.stringify(${jsLiteral(body, '  ')}),` : ''}
});
const text = await response.text();
if (!response.ok) throw new Error(\`\${response.status}: \${text}\`);
console.log(JSON.stringify(JSON.parse(text), null, 2));
`;
    case 'curl':
      return `curl -sS -X ${call.method} ${shellQuote(url)} \\
  -H ${shellQuote(`${header}: ${key}`)}${
    body
      ? ` \\
  -H 'Content-Type: application/json' \\
  -d ${shellQuote(JSON.stringify(body))}`
      : ''
  }
`;
  }
}

/** One row of a fields table: name, type, required or default, description. */
export type FieldRow = [name: string, type: string, presence: string, description: string];

export interface DocCall extends CallSpec {
  /** The in-page anchor. */
  id: string;
  title: string;
  description: string;
  fields?: FieldRow[];
  /** The answer, as JSON. */
  response: unknown;
}
