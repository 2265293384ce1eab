import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { usePageTitle } from '@/hooks/use-page-title';
import { BRAND, SUPPORT_URL } from '@/lib/brand';
import { HelpLayout, HelpSection } from './help-layout';

const Support = ({ children = 'support' }: { children?: ReactNode }) => (
  <a href={SUPPORT_URL} target="_blank" rel="noopener noreferrer">
    {children}
  </a>
);

/** The anchors are part of the contract (links point at them); every answer is what the product does. */
const QUESTIONS: { id: string; title: string; answer: ReactNode }[] = [
  {
    id: 'twoFactor',
    title: 'How do I turn on two-factor authentication, and how do I recover?',
    answer: (
      <>
        <p>
          In your Profile, under &quot;Two-factor authentication&quot;, choose &quot;Enable two-factor authentication&quot;, scan the
          QR code with an authenticator app (or type the secret shown), and enter the code it shows. Keep the 10 recovery codes
          you are then shown: each signs you in once. Your API key keeps working on its own.
        </p>
        <p>
          Adding a passkey turns two-factor sign-in on too, even without an authenticator app. &quot;Sign in with a passkey&quot;
          then needs nothing else, but signing in with your email and password also asks for the passkey, and on a device without
          it, for a recovery code. The 10 recovery codes are shown once, right after your first passkey is made: save them then.
        </p>
        <p>
          To recover: lost your phone, or signing in on a device without your passkey? Choose &quot;Use a recovery code&quot; at
          sign-in. Once you are in, make new recovery codes in your Profile, or set up a new authenticator app or passkey. Lost
          your recovery codes too? <Support>Contact support</Support>: once we have confirmed it is you, we turn two-factor off so
          you can set it up again.
        </p>
      </>
    ),
  },
  {
    id: 'preventAbuse',
    title: 'How do you prevent abuse?',
    answer: (
      <>
        <p>
          The API is guarded by a leaky-bucket rate limiter: 10 requests per second for each client address and for each API
          key. Beyond that a request is refused with &quot;Too Many Requests&quot; and told how many seconds to wait; repeated
          abuse can suspend the key. Sign-in attempts are throttled the same way.
        </p>
        <p>
          Every search, from the dashboard or the API, counts toward a daily limit per account. Accounts that search far more
          than anyone looking up their own records would are locked out of search for a period of hours. If it keeps happening, the account is barred from paid features; free monitoring keeps working.
        </p>
      </>
    ),
  },
  {
    id: 'weWorkWith',
    title: 'Who do you work with?',
    answer: (
      <p>
        Individuals checking their own exposure, security teams, researchers and investigators, law enforcement, government bodies and
        non-governmental organisations. Government personnel and non-profits can <Support>contact support</Support> for free access.
      </p>
    ),
  },
  {
    id: 'dataNotShown',
    title: 'Why is some data not shown?',
    answer: (
      <>
        <p>
          Without an active search subscription, a search shows how many records match but not their values. Some sensitive data,
          such as the original raw record, is shown only to accounts with law-enforcement status.
        </p>
        <p>Entries removed by their owners are gone from every result.</p>
      </>
    ),
  },
  {
    id: 'leStatus',
    title: 'How do I get law-enforcement status?',
    answer: (
      <p>
        Law-enforcement status is for law enforcement, government bodies, non-governmental organisations and organisations affiliated
        with either. To apply, <Support>contact support</Support> from your organisation&apos;s address: we will send you a KYC
        (know-your-customer) form to complete before the status is granted.
      </p>
    ),
  },
  {
    id: 'howDifferent',
    title: `How is ${BRAND} different?`,
    answer: (
      <p>
        {BRAND} searches every field of every record, not only email addresses: usernames, passwords and their hashes, IP addresses,
        names, phones, domains and more, with wildcards, regular expressions and filters by data well. Counts are exact, you can
        monitor values for new leaks, and the same searches are available through the API.
      </p>
    ),
  },
  {
    id: 'tooManyResults',
    title: 'Why do I get too many results?',
    answer: (
      <p>
        A value alone searches every field. Name the field (<code>email:name@example.com</code>), pick a tab, add a data well with{' '}
        <code>&amp;database_name=</code>, combine terms with AND, and keep Remove duplicates on. The{' '}
        <Link href="/documentation/search-guide">Search Guide</Link> shows how.
      </p>
    ),
  },
  {
    id: 'logsAndPrivacy',
    title: 'Do you log my searches?',
    answer: (
      <p>
        No. We keep only the number of searches each account makes per day, to enforce the limits above; the queries themselves
        are never stored. Password hashes in the Search Guide&apos;s helper are computed in your browser and never sent.
      </p>
    ),
  },
  {
    id: 'siteSecurity',
    title: 'How is the site secured?',
    answer: (
      <p>
        Passwords are stored only as slow, salted hashes; sessions use short-lived tokens with a refresh cookie that is rotated on
        every use and unreadable by scripts. API keys are shown in full only once, when generated, and can be regenerated at any
        time. Sign-in attempts and API calls are rate limited.
      </p>
    ),
  },
  {
    id: 'accessAndPurchase',
    title: 'How do I get access?',
    answer: (
      <p>
        Buy a search subscription (weekly, monthly or yearly) on the <Link href="/subscriptions">Subscriptions</Link> page; API
        searches also need search credits. Government personnel and non-profits can <Support>contact support</Support> for free
        access.
      </p>
    ),
  },
  {
    id: 'credits',
    title: 'What are search credits for?',
    answer: (
      <p>
        Search credits pay for searches through the API: one credit a search. Searching on this site needs a search subscription
        instead, and the API needs both. WHOIS credits are apart: they pay for WHOIS lookups, here and through the API.
      </p>
    ),
  },
  {
    id: 'favourites',
    title: 'Where are my favourites kept?',
    answer: (
      <p>
        On your device only, and only as record numbers, never the values, in a list of your account&apos;s own: they stay when
        you sign out and are back when you sign in on the same device; anyone else signing in there sees only theirs. When you
        open your favourites we fetch those records again, under your subscription and the same hiding rules as any search; a
        record removed since is no longer shown. Unstar a favourite to remove it.
      </p>
    ),
  },
  {
    id: 'readingCharts',
    title: 'How do I read the charts?',
    answer: (
      <>
        <p>
          Every chart has a title, a sentence under it with its main facts, and a &quot;Show the data as a table&quot; button that
          opens the same numbers as a table, for a screen reader, the keyboard, or anyone who would rather read them. Hover or zoom
          is never needed: what a mark shows is in the table too.
        </p>
        <ul>
          <li>
            <strong>Exposure timeline</strong> (search results for an email, username, phone or domain): one mark per data well
            holding matches, placed at the well&apos;s breach date; the bigger the mark, the more matching entries. Its label names
            the well and the kinds of data exposed there. Choose a mark to show only that well&apos;s results. Wells without a
            breach date are listed beside the timeline.
          </li>
          <li>
            <strong>Domain overview</strong> (monitoring, for a domain you have verified): the domain&apos;s matches per data
            well over time, how many distinct addresses of the domain are exposed, and which kinds of data; the same numbers can
            be downloaded as CSV.
          </li>
          <li>
            <strong>Catalogue charts</strong> (<Link href="/data-wells">Data Wells</Link>): breaches and records per breach year
            (wells without a date are counted in the sentence under the chart), the ten largest wells, and how wells expose
            passwords: in plain text only, as hashes only, both, or not at all.
          </li>
          <li>
            <strong>Matches per day</strong> (<Link href="/monitoring/reports">Monitoring Reports</Link>): for each of the last 90
            days (UTC), the matching records of the reports written that day, every task counted; a record matched by two of your
            tasks counts twice, as in the report itself.
          </li>
        </ul>
      </>
    ),
  },
  {
    id: 'deleteData',
    title: 'How do I remove my data?',
    answer: (
      <>
        <p>
          Anyone can opt their email address out, without an account: on the <Link href="/opt-out">opt-out page</Link>, enter the
          address and we email it a link. The link shows how many records hold it, per data well (never the values), and one button
          opts it out: no search, count, password check, alert or export shows a record holding it, including breaches added later.
          We keep only a keyed hash of the address for that, not the address. To undo it, ask for a new link: it offers to undo the
          opt-out. A link works once, for a day.
        </p>
        <p>
          A single entry can also be removed from its search result with Remove Entry: we email a confirmation link to an address in
          that entry, so only its owner can confirm, signed in or not. The entry disappears from every search, export and alert for
          good, and stays removed if the same record is added again.
        </p>
      </>
    ),
  },
  {
    id: 'closeAccount',
    title: 'How do I close my account?',
    answer: (
      <p>
        From your <Link href="/profile">profile page</Link>: choose Close Account and confirm with the link we email you. Your
        account and its sessions are ended.
      </p>
    ),
  },
];

/** /documentation/faq. */
export function FaqPage() {
  usePageTitle('FAQ');
  return (
    <HelpLayout
      title="Frequently Asked Questions"
      lead={`How ${BRAND} works, what it keeps and how to get access.`}
      updated="Updated April 2025"
      toc={QUESTIONS.map(({ id, title }) => ({ id, title }))}
    >
      {QUESTIONS.map((question) => (
        <HelpSection key={question.id} id={question.id} title={question.title}>
          <div className="faq-answer">{question.answer}</div>
        </HelpSection>
      ))}
    </HelpLayout>
  );
}
