/**
 * How a webhook receiver checks a delivery (Standard Webhooks, as the service signs them:
 * docs/monitoring.md "Delivery"). Python, Go and Node.js: a complete receiver
 * that verifies, answers 204 at once and ignores a webhook-id it has already handled; the
 * shell tab signs a test delivery with openssl and sends it with curl, so a receiver can
 * be tried before the first real report. server/test/dashboard/monitoring-docs-samples.test.ts runs
 * them against each other and against a reference signer. No React here.
 */
import type { Language } from '../../../lib/api-samples';
import { WEBHOOK_PAYLOAD } from './v2-calls';

/** Seconds a delivery's timestamp may be off from the receiver's clock. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export function webhookSample(language: Language): string {
  switch (language) {
    case 'python':
      return `# Python 3, standard library only; save as receiver.py and run:
#   WEBHOOK_SECRET=whsec_... python3 receiver.py
import base64
import hashlib
import hmac
import json
import os
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET = base64.b64decode(os.environ["WEBHOOK_SECRET"].removeprefix("whsec_"))
TOLERANCE = ${WEBHOOK_TOLERANCE_SECONDS}  # seconds
handled = set()  # webhook-id values already handled; keep them in your database


def verify(headers, body):
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not msg_id or not timestamp or not signatures or not timestamp.isdigit():
        return False
    if abs(time.time() - int(timestamp)) > TOLERANCE:
        return False
    signed = msg_id.encode() + b"." + timestamp.encode() + b"." + body
    expected = base64.b64encode(hmac.new(SECRET, signed, hashlib.sha256).digest()).decode()
    for entry in signatures.split(" "):
        version, _, signature = entry.partition(",")
        if version == "v1" and hmac.compare_digest(signature.encode(), expected.encode()):
            return True
    return False


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if not verify(self.headers, body):
            self.send_response(401)
            self.end_headers()
            return
        self.send_response(204)  # answer at once, work afterwards
        self.end_headers()
        msg_id = self.headers["webhook-id"]
        if msg_id in handled:  # a retry of a delivery already handled
            return
        handled.add(msg_id)
        report = json.loads(body)
        print(f"new report {report['id']}", flush=True)


HTTPServer(("", int(os.environ.get("PORT", "8000"))), Receiver).serve_forever()
`;
    case 'golang':
      return `// Go 1.18 or later; save as receiver.go and run:
//   WEBHOOK_SECRET=whsec_... go run receiver.go
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

const tolerance = ${WEBHOOK_TOLERANCE_SECONDS} // seconds

var secret, _ = base64.StdEncoding.DecodeString(strings.TrimPrefix(os.Getenv("WEBHOOK_SECRET"), "whsec_"))
var handled sync.Map // webhook-id values already handled; keep them in your database

func verify(header http.Header, body []byte) bool {
	id, timestamp := header.Get("webhook-id"), header.Get("webhook-timestamp")
	seconds, err := strconv.ParseInt(timestamp, 10, 64)
	if id == "" || err != nil {
		return false
	}
	if age := time.Now().Unix() - seconds; age > tolerance || age < -tolerance {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(body)
	expected := mac.Sum(nil)
	for _, entry := range strings.Split(header.Get("webhook-signature"), " ") {
		version, signature, _ := strings.Cut(entry, ",")
		given, err := base64.StdEncoding.DecodeString(signature)
		if version == "v1" && err == nil && hmac.Equal(given, expected) {
			return true
		}
	}
	return false
}

func main() {
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if r.Method != http.MethodPost || !verify(r.Header, body) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent) // answer at once, work afterwards
		if _, seen := handled.LoadOrStore(r.Header.Get("webhook-id"), true); seen {
			return // a retry of a delivery already handled
		}
		var report struct {
			ID string \`json:"id"\`
		}
		json.Unmarshal(body, &report)
		fmt.Println("new report", report.ID)
	})
	port := os.Getenv("PORT")
	if port == "" {
		port = "8000"
	}
	http.ListenAndServe(":"+port, nil)
}
`;
    case 'nodejs':
      return `// Node.js 18 or later; save as receiver.mjs and run:
//   WEBHOOK_SECRET=whsec_... node receiver.mjs
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const secret = Buffer.from(process.env.WEBHOOK_SECRET.replace(/^whsec_/, ''), 'base64');
const TOLERANCE = ${WEBHOOK_TOLERANCE_SECONDS}; // seconds
const handled = new Set(); // webhook-id values already handled; keep them in your database

function verify(headers, body) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !/^\\d+$/.test(timestamp ?? '') || !signatures) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE) return false;
  const expected = createHmac('sha256', secret).update(\`\${id}.\${timestamp}.\`).update(body).digest();
  return signatures.split(' ').some((entry) => {
    const [version, signature = ''] = entry.split(',');
    const given = Buffer.from(signature, 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    if (request.method !== 'POST' || !verify(request.headers, body)) {
      response.writeHead(401).end();
      return;
    }
    response.writeHead(204).end(); // answer at once, work afterwards
    const id = request.headers['webhook-id'];
    if (handled.has(id)) return; // a retry of a delivery already handled
    handled.add(id);
    const report = JSON.parse(body);
    console.log(\`new report \${report.id}\`);
  });
}).listen(Number(process.env.PORT ?? 8000));
`;
    case 'curl':
      return `# Sends your receiver a test delivery signed as the service signs them (openssl and curl).
#   WEBHOOK_SECRET=whsec_... sh test-delivery.sh http://localhost:8000/
URL="\${1:-http://localhost:8000/}"
ID="msg_test_$(date +%s)"
TIMESTAMP=$(date +%s)
BODY=${shellQuote(JSON.stringify(WEBHOOK_PAYLOAD))}
KEY_HEX=$(printf '%s' "\${WEBHOOK_SECRET#whsec_}" | openssl base64 -d -A | od -An -v -tx1 | tr -d ' \\n')
SIGNATURE=$(printf '%s.%s.%s' "$ID" "$TIMESTAMP" "$BODY" \\
  | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$KEY_HEX" -binary | openssl base64 -A)
curl -sS -i -X POST "$URL" \\
  -H 'Content-Type: application/json' \\
  -H "webhook-id: $ID" \\
  -H "webhook-timestamp: $TIMESTAMP" \\
  -H "webhook-signature: v1,$SIGNATURE" \\
  -d "$BODY"
`;
  }
}

/** A value inside a single-quoted shell word. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
