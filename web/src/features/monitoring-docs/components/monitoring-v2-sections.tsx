import type { SampleContext } from '@/lib/api-samples';
import { CodeBlock, CodeTabs } from '@/features/api-docs';
import { HelpSection, type TocEntry } from '@/features/docs';
import { V2_GROUPS, WEBHOOK_PAYLOAD, WEBHOOK_RETRY_SCHEDULE } from '../lib/v2-calls';
import { WEBHOOK_TOLERANCE_SECONDS, webhookSample } from '../lib/webhook-samples';
import { CallDoc } from './call-doc';
import './monitoring-docs.css';
import { ReferenceTable } from '@/components/reference-table';

/** The table of contents of the monitoring sections: Tasks, Reports, Notification Channels, Domains, Webhooks. */
export const V2_TOC: TocEntry[] = [
  ...V2_GROUPS.map((group) => ({ id: group.id, title: group.title })),
  { id: 'monitoring-webhooks', title: 'Webhooks' },
];

/**
 * The public API v2's monitoring calls and webhooks, shared by /documentation/api (inside
 * its Monitoring API section: groups at level 3) and /monitoring/documentation-v2 (groups
 * at level 2).
 */
export function MonitoringV2Sections({ context, level }: { context: SampleContext; level: 2 | 3 }) {
  const callLevel = (level + 1) as 3 | 4;
  return (
    <>
      {V2_GROUPS.map((group) => (
        <HelpSection key={group.id} id={group.id} title={group.title} level={level}>
          <p>{group.intro}</p>
          {group.calls.map((call) => (
            <CallDoc key={call.id} call={call} context={context} level={callLevel} />
          ))}
        </HelpSection>
      ))}
      <WebhooksSection level={level} />
    </>
  );
}

const HEADERS = [
  ['webhook-id', 'The delivery’s id: the same on every retry of one delivery, so you can skip one you already handled.'],
  ['webhook-timestamp', 'When this attempt was signed, in seconds since 1970 (UTC).'],
  ['webhook-signature', 'v1, then a comma, then the base64 HMAC-SHA256 signature. Several may be given, separated by spaces: accept the delivery if any one matches.'],
];

export function WebhooksSection({ level }: { level: 2 | 3 }) {
  const sub = (level + 1) as 3 | 4;
  return (
    <HelpSection id="monitoring-webhooks" title="Webhooks" level={level}>
      <p>
        With a webhook channel, each new report is also sent to your URL as a <code>POST</code> with a JSON body. The body names the
        report: fetch it with <a href="#v2-get-report">Get Report</a>. <code>breach_id</code> repeats the id for clients of the
        Monitor API V1.
      </p>
      <CodeBlock code={JSON.stringify(WEBHOOK_PAYLOAD, null, 2)} />
      <HelpSection id="webhook-signatures" title="Signatures" level={sub}>
        <p>
          Deliveries are signed as the{' '}
          <a href="https://www.standardwebhooks.com/" target="_blank" rel="noopener noreferrer">
            Standard Webhooks
          </a>{' '}
          specification describes, with the secret shown once when you add the webhook channel (it starts with{' '}
          <code>whsec_</code>). Each delivery has three headers:
        </p>
        <ReferenceTable label="Webhook headers" head={['Header', 'Meaning']} rows={HEADERS} />
        <p>To verify a delivery:</p>
        <ol className="docs-steps">
          <li>
            Take the secret after <code>whsec_</code> and base64-decode it: those bytes are the key.
          </li>
          <li>
            Compute the HMAC-SHA256 of <code>{'{webhook-id}.{webhook-timestamp}.{body}'}</code>, with the body exactly as received
            (before any JSON parsing), and base64-encode it.
          </li>
          <li>
            Compare it with each <code>v1,</code> signature in constant time; refuse the delivery if none matches.
          </li>
          <li>
            Refuse a timestamp more than {WEBHOOK_TOLERANCE_SECONDS / 60} minutes away from your clock: an old delivery replayed
            is not accepted.
          </li>
          <li>
            Answer with a <code>2xx</code> status at once and do the work afterwards; skip a <code>webhook-id</code> you have
            already handled.
          </li>
        </ol>
        <p>
          A complete receiver in Python, Go and Node.js; the cURL tab signs a test delivery with openssl and sends it to your
          receiver, so you can try it before the first report.
        </p>
        <CodeTabs name="webhook" code={(language) => webhookSample(language)} />
      </HelpSection>
      <HelpSection id="webhook-retries" title="Retries" level={sub}>
        <p>
          A delivery succeeds when your URL answers a <code>2xx</code> status within 15 seconds. Redirects are not followed: a{' '}
          <code>3xx</code> answer is a failure. A failed delivery is tried again with the same <code>webhook-id</code> (the body’s{' '}
          <code>timestamp</code> is the attempt’s), up to 10 attempts in all, after these waits (a <code>Retry-After</code> header
          you send is honoured):
        </p>
        <ol className="webhook-schedule" aria-label="Waits before each attempt">
          {WEBHOOK_RETRY_SCHEDULE.map((wait, index) => (
            <li key={wait}>
              <span className="webhook-attempt">{index + 1}</span>
              {wait}
            </li>
          ))}
        </ol>
        <p>
          After the last attempt the delivery is given up: you get a notice in your inbox and an email. An answer of{' '}
          <code>410 Gone</code> disables the webhook channel at once, without retries: set it again when your receiver is back.
          The URL must reach the public internet: addresses on a private network, loopback or link-local are refused when you
          save the channel and again when each delivery connects.
        </p>
      </HelpSection>
    </HelpSection>
  );
}
