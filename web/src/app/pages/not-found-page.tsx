import { Link } from 'wouter';
import {
  ArrowRightIcon,
  BookIcon,
  DatabaseIcon,
  GlobeIcon,
  HomeIcon,
  InfoIcon,
  LifeBuoyIcon,
  RadarIcon,
  SearchIcon,
  ShieldIcon,
} from '@/components/icons';
import { Logo } from '@/components/logo';
import { usePageTitle } from '@/hooks/use-page-title';
import { SUPPORT_URL } from '@/lib/brand';

const QUICK_LINKS = [
  { label: 'Home', href: '/', icon: HomeIcon },
  { label: 'About', href: '/tos-privacy', icon: InfoIcon },
  { label: 'Data wells', href: '/data-wells', icon: DatabaseIcon },
  { label: 'FAQ', href: '/documentation/faq', icon: BookIcon },
];

const SERVICES = [
  { label: 'Search', description: 'Look up leaked records', href: '/search', icon: SearchIcon },
  { label: 'Monitoring', description: 'Get alerts for your values', href: '/monitoring/manage', icon: RadarIcon },
  { label: 'API', description: 'Integrate with the API', href: '/documentation/api-v1', icon: BookIcon },
  { label: 'WHOIS', description: 'Domain intelligence', href: '/whois', icon: GlobeIcon },
];

/** Any unknown path; inside the dashboard frame under /monitoring. */
export function NotFoundPage({ framed = false }: { framed?: boolean }) {
  usePageTitle('Page not found');
  const content = (
    <div className="not-found">
      <p className="not-found-code">404</p>
      <h1>Page not found</h1>
      <p className="muted">The page you are looking for does not exist or has moved.</p>

      <nav className="quick-links" aria-label="Quick navigation">
        {QUICK_LINKS.map(({ label, href, icon: Icon }) => (
          <Link key={label} href={href} className="chip">
            <Icon width={15} height={15} />
            {label}
          </Link>
        ))}
      </nav>

      <h2 className="section-label">Services</h2>
      <div className="tile-grid">
        {SERVICES.map(({ label, description, href, icon: Icon }) => (
          <Link key={label} href={href} className="tile">
            <Icon />
            <span className="tile-title">{label}</span>
            <span className="tile-text">{description}</span>
          </Link>
        ))}
      </div>

      <h2 className="section-label" id="not-found-help">
        Need help?
      </h2>
      {/* Help anyone can open (the FAQ and guides ask for an account): opt-out is among it, for people with no account. */}
      <nav className="tile-grid" aria-labelledby="not-found-help">
        <Link href="/documentation/faq" className="tile">
          <BookIcon />
          <span className="tile-title">FAQ</span>
          <span className="tile-text">Answers to common questions</span>
        </Link>
        <a href={SUPPORT_URL} className="tile" target="_blank" rel="noopener noreferrer">
          <LifeBuoyIcon />
          <span className="tile-title">Customer service</span>
          <span className="tile-text">Talk to our support team</span>
        </a>
        <Link href="/documentation/search-guide" className="tile">
          <ArrowRightIcon />
          <span className="tile-title">Knowledge base</span>
          <span className="tile-text">Guides to searching well</span>
        </Link>
        <Link href="/opt-out" className="tile">
          <ShieldIcon />
          <span className="tile-title">Opt out</span>
          <span className="tile-text">Take your email out of results, no account needed</span>
        </Link>
      </nav>
    </div>
  );
  if (framed) return content;
  return (
    <div className="plain-page">
      <header className="plain-header">
        <Logo />
      </header>
      <main>{content}</main>
    </div>
  );
}
