import { useState } from 'react';
import { Link } from 'wouter';
import { HISTORY_COST, WHOIS_TAB_LABELS, WHOIS_TOOLS, type WhoisTool } from '@common/whois-rules';
import { BookIcon, CardIcon, GlobeIcon, InfoIcon } from '@/components/icons';
import { HelpCards, type HelpCard } from '@/components/help-cards';
import { usePageTitle } from '@/hooks/use-page-title';
import { toastErrors } from '@/lib/toast-store';
import { useWhois } from '../api/use-whois';
import { useWhoisCredits } from '../api/use-whois-credits';
import { formatCount } from '../lib/format';
import { preparedQuery, type ReverseWhoisInput } from '../lib/whois-query';
import { showCreditsToast } from './credits-toast';
import { WhoisForm } from './whois-form';
import { WhoisResults } from './whois-results';
import './whois.css';

/** /whois: seven tools behind tabs, the credit balance, each tab's results, help cards. */
export function WhoisPage() {
  usePageTitle('WHOIS');
  const { data: balance } = useWhoisCredits();
  const { results, running, run } = useWhois(balance);
  const [tool, setTool] = useState<WhoisTool>('whois');
  const [query, setQuery] = useState('');
  const [reverse, setReverse] = useState<ReverseWhoisInput>({ mode: 'current', include: '', exclude: '' });

  const submit = async () => {
    if (running) return; // one lookup at a time; validation waits too
    const prepared = preparedQuery(tool, query, reverse);
    if (!prepared.ok) {
      toastErrors([prepared.message]);
      return;
    }
    if ((await run(tool, prepared.value)) === 'credits') showCreditsToast();
  };

  const result = results[tool];
  const withResults = new Set(WHOIS_TOOLS.filter((value) => results[value]));

  return (
    <div className="page whois-page">
      <header className="page-header whois-header">
        <div>
          <h1>WHOIS</h1>
          <p className="page-lead">Domain intelligence: registration records and their history, and the domains behind a name, an address or a server.</p>
        </div>
        <div className="whois-balance" data-testid="whois-balance-card">
          <span className="whois-balance-label">WHOIS credits</span>
          <strong className="whois-balance-value" data-testid="whois-balance">
            {balance === undefined ? '—' : formatCount(balance)}
          </strong>
          <Link href="/subscriptions/whois-credits" className="link whois-balance-link">
            Buy credits
          </Link>
        </div>
      </header>

      <WhoisForm
        tool={tool}
        onTool={setTool}
        withResults={withResults}
        query={query}
        onQuery={setQuery}
        reverse={reverse}
        onReverse={setReverse}
        running={running !== null}
        onSubmit={() => void submit()}
      />

      <div className="whois-results-area" aria-busy={running === tool}>
        {result ? (
          <WhoisResults key={`${result.response.fetched_at}-${result.query}`} tool={tool} result={result} />
        ) : running === tool ? (
          <section className="card status-card" aria-busy="true">
            <span className="spinner" />
            <p className="muted">Looking up…</p>
          </section>
        ) : (
          <section className="card empty-state" data-testid="whois-intro">
            <span className="empty-icon">
              <GlobeIcon width={28} height={28} />
            </span>
            <h2>{WHOIS_TAB_LABELS[tool]}</h2>
            <p className="muted">Results show here once a lookup answers; each tab keeps its own.</p>
          </section>
        )}
      </div>

      <InfoCards />
    </div>
  );
}

const CARDS: HelpCard[] = [
  { href: '/documentation/search-guide', title: 'Search Guide', text: 'How queries and lookups work', icon: BookIcon },
  { href: '/documentation/faq', title: 'FAQ', text: 'Answers to common questions', icon: InfoIcon },
  { href: '/subscriptions/whois-credits', title: 'WHOIS Credits', text: `One credit a lookup; history ${HISTORY_COST}`, icon: CardIcon },
];

function InfoCards() {
  return <HelpCards cards={CARDS} className="whois-info" />;
}
