import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { BRAND } from '@/lib/brand';

export interface LegalSection {
  id: string;
  title: string;
  body: ReactNode;
}

/** Terms of service. Plain-language, original text. */
export function termsSections(): LegalSection[] {
  return [
    {
      id: 'preamble',
      title: 'Preamble',
      body: (
        <>
          <p>
            These Terms of Service ("Terms") govern your use of {BRAND}, its website, dashboard and application
            programming interfaces (together, the "Service"). {BRAND} helps people and organisations find out whether
            their information appears in publicly circulated data breaches, monitor for new exposures and investigate
            domains.
          </p>
          <p>
            By creating an account or using the Service you accept these Terms and the Privacy Policy below. If you do
            not accept them, do not use the Service.
          </p>
        </>
      ),
    },
    {
      id: 'general-provisions',
      title: 'General Provisions',
      body: (
        <>
          <p>
            You must be at least 18 years old to use the Service. You may use the Service only for lawful purposes:
            protecting your own accounts, securing systems you are responsible for, research and investigations you
            are authorised to carry out.
          </p>
          <p>You agree not to:</p>
          <ul>
            <li>use results to access, or attempt to access, accounts or systems that are not yours;</li>
            <li>harass, stalk, threaten, defraud or impersonate anyone;</li>
            <li>resell, republish or bulk-export results except as the API terms allow;</li>
            <li>circumvent rate limits, credits, access controls or other technical restrictions.</li>
          </ul>
          <p>
            Abuse is limited automatically. Accounts that search too many records that are not their own are locked
            for a period; if it continues, they lose access to paid features while keeping free monitoring.
          </p>
        </>
      ),
    },
    {
      id: 'updates',
      title: 'Updates to These Terms',
      body: (
        <p>
          We may change these Terms from time to time. When a change is material we will tell you by email or in the
          dashboard before it takes effect. Continuing to use the Service after that date means you accept the new
          Terms; if you do not, you may close your account from your profile page.
        </p>
      ),
    },
    {
      id: 'applicability-of-laws',
      title: 'Applicability of Laws',
      body: (
        <p>
          You are responsible for complying with the laws that apply to you, including data-protection, computer-misuse
          and privacy laws, when you use the Service or any information it returns. Some records are shown only to
          accounts with law-enforcement status (law enforcement, government bodies, non-governmental organisations and
          organisations affiliated with them), after a know-your-customer review.
        </p>
      ),
    },
    {
      id: 'registration',
      title: 'Registration',
      body: (
        <>
          <p>
            You need an account with a verified email address to use the Service. Keep your password and API keys
            secret: you are responsible for what happens under your account. Tell us at once if you believe your
            account has been compromised.
          </p>
          <p>
            Paid features are sold as subscriptions and credits on the{' '}
            <Link href="/subscriptions/search">subscriptions page</Link>. Purchases come with a 30-day money-back
            guarantee; approved refunds reach your original payment method within 3 to 7 business days.
          </p>
        </>
      ),
    },
    {
      id: 'governing-law',
      title: 'Governing Law',
      body: (
        <p>
          These Terms are governed by the laws of the place where {BRAND} is established, without regard to its
          conflict-of-law rules. Disputes will be heard by the competent courts there, unless the law of your country
          of residence gives you the right to bring them elsewhere.
        </p>
      ),
    },
    {
      id: 'warranties',
      title: 'Warranties and Liability',
      body: (
        <p>
          The Service reports what circulates in breached and leaked data sets; that data may be incomplete, outdated
          or wrong. The Service is provided "as is" without warranties of any kind. To the extent the law allows, our
          total liability for any claim is limited to the amount you paid us in the twelve months before the claim.
        </p>
      ),
    },
    {
      id: 'entire-agreement',
      title: 'Entire Agreement',
      body: (
        <p>
          These Terms and the Privacy Policy are the entire agreement between you and {BRAND} about the Service. If a
          provision is found unenforceable, the rest remains in effect. Our not enforcing a provision is not a waiver
          of it.
        </p>
      ),
    },
  ];
}

/** Privacy policy: 13 numbered sections. */
export function privacySections(): LegalSection[] {
  const sections: Omit<LegalSection, 'id'>[] = [
    {
      title: 'Who We Are',
      body: (
        <p>
          {BRAND} operates the Service and is responsible for the personal data described here. You can reach us at
          the address at the bottom of this page.
        </p>
      ),
    },
    {
      title: 'Information We Collect',
      body: (
        <ul>
          <li>Account data: your email address and a hash of your password (never the password itself).</li>
          <li>Billing data: what you bought, when and for how much; the payment itself is handled by our processors.</li>
          <li>Monitoring data: the values you ask us to watch and the channels you want alerts on.</li>
          <li>Technical data: IP addresses held briefly by our rate limiter and security logs.</li>
        </ul>
      ),
    },
    {
      title: 'How We Use Your Information',
      body: (
        <p>
          We use your data to run your account, deliver searches and alerts, process payments, prevent abuse and meet
          legal obligations. We do not sell your data and we do not use it for advertising.
        </p>
      ),
    },
    {
      title: 'Searches and Logs',
      body: (
        <p>
          We log only how many searches each account makes, not what was searched. The count is used for credits, rate
          limits and abuse prevention.
        </p>
      ),
    },
    {
      title: 'Cookies',
      body: (
        <p>
          No cookies are used for tracking, analytics or advertising. The only cookies we set are the ones the Service
          cannot work without: one that keeps you signed in and one that remembers your light or dark theme.
        </p>
      ),
    },
    {
      title: 'Payments and Refunds',
      body: (
        <p>
          Every purchase carries a 30-day money-back guarantee. Refunds are sent to the original payment method and
          take 3 to 7 business days to arrive. Invoices are kept only if you enable "Save invoices" on your profile.
        </p>
      ),
    },
    {
      title: 'Data Retention',
      body: (
        <p>
          We keep account data for 5 years after an account is closed, to answer legal and accounting requests, and
          then delete it. Where the Service has been unused for 90 to 120 days, we may dispose of the account's data
          after 3 years instead.
        </p>
      ),
    },
    {
      title: 'Sharing and Disclosure',
      body: (
        <p>
          We share data only with processors that help us run the Service (hosting, email delivery, payments), under
          contracts that bind them to this policy, or when the law requires it. We review every legal request and
          disclose no more than it strictly requires.
        </p>
      ),
    },
    {
      title: 'Breach Notification',
      body: (
        <p>
          If a security incident exposes sensitive data about you, we will email you within 72 hours of learning of
          it, describing what happened and what you can do.
        </p>
      ),
    },
    {
      title: 'Security',
      body: (
        <p>
          Traffic is encrypted in transit, passwords are stored with a slow one-way hash, access to production systems
          is limited and logged, and sensitive records are visible only to accounts with law-enforcement status.
        </p>
      ),
    },
    {
      title: 'Your Rights',
      body: (
        <>
          <p>
            You may ask for a copy of your data, its correction or its deletion. Anyone can remove their own entry from
            public search with the Remove Entry action below search results, and you can close your account from your
            profile page at any time.
          </p>
          <p>
            Anyone can also opt their email address out, without an account, on the <Link href="/opt-out">opt-out page</Link>:
            after confirming through a link mailed to the address, no search, count, password check, alert or export shows a
            record holding it, including records of breaches added later. To do this we keep a keyed hash of the address (a
            value from which the address cannot be read back), not the address itself. The owner of the address can undo the
            opt-out the same way, through a new mailed link.
          </p>
        </>
      ),
    },
    {
      title: 'Age Requirement',
      body: (
        <p>
          The Service is for people aged 18 or older. We do not knowingly collect data from anyone younger; if you
          believe we have, contact us and we will delete it.
        </p>
      ),
    },
    {
      title: 'Contact Us',
      body: (
        <p>
          Questions about this policy or your data go to our support team at the address, phone number or email
          below. Government personnel and non-profit organisations may contact support about free access.
        </p>
      ),
    },
  ];
  return sections.map((section, index) => ({
    ...section,
    id: `privacy-${index + 1}`,
    title: `${index + 1}. ${section.title}`,
  }));
}
