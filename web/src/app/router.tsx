import { Redirect, Route, Switch } from 'wouter';
import { CloseAccountPage } from '@/features/account/components/close-account-page';
import { ProfilePage } from '@/features/account/components/profile-page';
import { SignInScreen } from '@/features/auth/components/sign-in-screen';
import { ApiDocsPage } from '@/features/api-docs/components/api-docs-page';
import { DataWellsPage } from '@/features/datawells/components/data-wells-page';
import { SIGN_IN_PATHS } from '@/features/auth/redirect';
import { TosPrivacyPage } from '@/features/legal/components/tos-privacy-page';
import { EntryRemovalPage } from '@/features/search/components/entry-removal-page';
import { SearchPage } from '@/features/search/components/search-page';
import { useSession } from '@/lib/session';
import { Protected, PublicOnly, Splash } from './guards';
import { ComingSoonPage } from './pages/coming-soon-page';
import { LogoutPage } from './pages/logout-page';
import { NotFoundPage } from './pages/not-found-page';
import { TestPage } from './pages/test-page';

/** Signed-in pages of later issues: framed placeholders until their feature lands. */
const UPCOMING_PAGES: { path: string; title: string }[] = [
  { path: '/documentation/faq', title: 'FAQ' },
  { path: '/documentation/search-guide', title: 'Search Guide' },
  { path: '/documentation/quick-start', title: 'Quick Start' },
  { path: '/event-codes', title: 'Event Codes' },
  { path: '/whois', title: 'WHOIS' },
  { path: '/monitoring/manage', title: 'Monitoring' },
  { path: '/monitoring/manage/tasks', title: 'Monitor Tasks' },
  { path: '/monitoring/manage/channels', title: 'Notification Channels' },
  { path: '/monitoring/api', title: 'Monitoring API' },
  { path: '/monitoring/reports', title: 'Monitoring Reports' },
  { path: '/monitoring/reports/:id', title: 'Monitoring Report' },
  { path: '/monitoring/documentation', title: 'Monitoring Documentation' },
  { path: '/notifications', title: 'Notifications' },
  { path: '/subscriptions', title: 'Subscriptions' },
  { path: '/subscriptions/search', title: 'Search Subscription' },
  { path: '/subscriptions/monitoring', title: 'Monitoring Subscription' },
  { path: '/subscriptions/search-credits', title: 'Search Credits' },
  { path: '/subscriptions/whois-credits', title: 'WHOIS Credits' },
  { path: '/subscriptions/payment-history', title: 'Payment History' },
  { path: '/crypto-checkout', title: 'Crypto Checkout' },
  { path: '/checkout', title: 'Checkout' },
  { path: '/thank-you', title: 'Thank You' },
];

/** One pattern for every sign-in view, so switching views keeps the screen mounted. */
const SIGN_IN_PATTERN = new RegExp(`^(?:${SIGN_IN_PATHS.join('|')})/?$`);

function Home() {
  const { status } = useSession();
  if (status === 'pending') return <Splash />;
  return <Redirect to={status === 'signed-in' ? '/search' : '/login'} replace />;
}

/** The route table of spec 1 §2.1. */
export function AppRouter() {
  return (
    <Switch>
      <Route path={SIGN_IN_PATTERN}>
        <PublicOnly>
          <SignInScreen />
        </PublicOnly>
      </Route>
      <Route path="/" component={Home} />
      <Route path="/logout" component={LogoutPage} />
      <Route path="/test" component={TestPage} />
      {/* Open to everyone: the terms must be readable before registering. */}
      <Route path="/tos-privacy" component={TosPrivacyPage} />

      <Route path="/profile">
        <Protected title="Profile">
          <ProfilePage />
        </Protected>
      </Route>
      <Route path="/close-account">
        <Protected title="Close Account">
          <CloseAccountPage />
        </Protected>
      </Route>
      <Route path="/data-wells">
        <Protected title="Data Wells">
          <DataWellsPage />
        </Protected>
      </Route>
      <Route path="/search">
        <Protected title="Search">
          <SearchPage />
        </Protected>
      </Route>
      <Route path="/entry-removal">
        <Protected title="Entry Removal">
          <EntryRemovalPage />
        </Protected>
      </Route>
      <Route path="/documentation/api">
        <Protected title="Documentation / API">
          <ApiDocsPage />
        </Protected>
      </Route>
      {UPCOMING_PAGES.map(({ path, title }) => (
        <Route key={path} path={path}>
          <Protected title={title}>
            <ComingSoonPage title={title} />
          </Protected>
        </Route>
      ))}
      {/* Anything else under /monitoring keeps the frame around the not-found content. */}
      <Route path="/monitoring/*?">
        <Protected title="Monitoring">
          <NotFoundPage framed />
        </Protected>
      </Route>
      <Route>
        <NotFoundPage />
      </Route>
    </Switch>
  );
}
