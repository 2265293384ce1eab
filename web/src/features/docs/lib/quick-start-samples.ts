/**
 * The Quick Start's first search, per language: complete programs that print the total
 * and the first entries. Each uses only its language's standard library (Python: urllib),
 * so it runs as pasted. The page fills in the user's key and its own origin;
 * server/test/dashboard/quick-start-samples.test.ts runs the Node.js and Python ones against a test
 * server. No React or DOM here: the test imports this module.
 */
import { SAMPLE_QUERY, type Language, type SampleContext } from '../../../lib/api-samples';

/** A value as a JSON / JavaScript / Go / Python double-quoted string. */
const dq = (value: string) => JSON.stringify(value);
/** A value inside a single-quoted shell word. */
const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

export const QUICK_START_QUERY = SAMPLE_QUERY;
const SIZE = 10;

export function quickStartSample(language: Language, { baseUrl, header, key }: SampleContext, query = QUICK_START_QUERY): string {
  const url = `${baseUrl}/v2/search`;
  switch (language) {
    case 'python':
      return `# Python 3, standard library only; save as search.py and run: python3 search.py
import json
import urllib.error
import urllib.request

body = {"query": ${dq(query)}, "page": 1, "size": ${SIZE}}
request = urllib.request.Request(
    ${dq(url)},
    data=json.dumps(body).encode("utf-8"),
    headers={${dq(header)}: ${dq(key)}, "Content-Type": "application/json"},
    method="POST",
)
try:
    with urllib.request.urlopen(request, timeout=30) as response:
        answer = json.load(response)
except urllib.error.HTTPError as error:
    raise SystemExit(f"{error.code}: {json.load(error).get('error')}")

print(f"Total: {answer['total']} (took {answer['took']}, {answer['balance']} credits left)")
for entry in answer["entries"]:
    print(entry.get("database_name"), entry.get("email"), entry.get("username"))
`;
    case 'golang':
      return `// Go 1.18 or later; save as search.go and run: go run search.go
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
)

func main() {
	body, _ := json.Marshal(map[string]any{"query": ${dq(query)}, "page": 1, "size": ${SIZE}})
	request, _ := http.NewRequest("POST", ${dq(url)}, bytes.NewReader(body))
	request.Header.Set(${dq(header)}, ${dq(key)})
	request.Header.Set("Content-Type", "application/json")

	response, err := http.DefaultClient.Do(request)
	if err != nil {
		panic(err)
	}
	defer response.Body.Close()
	var answer struct {
		Balance int              \`json:"balance"\`
		Entries []map[string]any \`json:"entries"\`
		Took    string           \`json:"took"\`
		Total   int              \`json:"total"\`
		Error   string           \`json:"error"\`
	}
	if err := json.NewDecoder(response.Body).Decode(&answer); err != nil {
		panic(err)
	}
	if response.StatusCode != http.StatusOK {
		fmt.Printf("%d: %s\\n", response.StatusCode, answer.Error)
		os.Exit(1)
	}
	fmt.Printf("Total: %d (took %s, %d credits left)\\n", answer.Total, answer.Took, answer.Balance)
	for _, entry := range answer.Entries {
		fmt.Println(entry["database_name"], entry["email"], entry["username"])
	}
}
`;
    case 'nodejs':
      return `// Node.js 18 or later; save as search.mjs and run: node search.mjs
const response = await fetch(${dq(url)}, {
  method: 'POST',
  headers: { ${dq(header)}: ${dq(key)}, 'Content-Type': 'application/json' },
  body: JSON.stringify({ query: ${dq(query)}, page: 1, size: ${SIZE} }),
});
const answer = await response.json();
if (!response.ok) {
  console.error(\`\${response.status}: \${answer.error}\`);
  process.exit(1);
}
console.log(\`Total: \${answer.total} (took \${answer.took}, \${answer.balance} credits left)\`);
for (const entry of answer.entries) console.log(entry.database_name, entry.email, entry.username);
`;
    case 'curl':
      return `curl -sS -X POST ${shellQuote(url)} \\
  -H ${shellQuote(`${header}: ${key}`)} \\
  -H 'Content-Type: application/json' \\
  -d ${shellQuote(JSON.stringify({ query, page: 1, size: SIZE }))}
`;
  }
}
