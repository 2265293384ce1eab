import { Redirect, Route, Switch } from 'wouter';
import { CloseAccountPage } from '@/features/account/components/close-account-page';
import { ProfilePage } from '@/features/account/components/profile-page';
import { SignInScreen } from '@/features/auth/components/sign-in-screen';
import { ApiDocsPage } from '@/features/api-docs/components/api-docs-page';
import { BREACH_API_TITLE, BreachApiDocsPage } from '@/features/breach-api-docs';
import { FaqPage } from '@/features/docs/components/faq-page';
import { QuickStartPage } from '@/features/docs/components/quick-start-page';
import { SearchGuidePage } from '@/features/docs/components/search-guide-page';
import { DataWellsPage } from '@/features/datawells/components/data-wells-page';
import { SIGN_IN_PATHS } from '@/features/auth/redirect';
import { TosPrivacyPage } from '@/features/legal/components/tos-privacy-page';
import { EntryRemovalPage } from '@/features/search/components/entry-removal-page';
import { SearchPage } from '@/features/search/components/search-page';
import { WhoisPage } from '@/features/whois/components/whois-page';
import { OptOutPage } from '@/features/privacy/components/opt-out-page';
import { CheckoutPage } from '@/features/checkout/components/checkout-page';
import { CryptoCheckoutPage } from '@/features/checkout/components/crypto-checkout-page';
import { ThankYouPage } from '@/features/checkout/components/thank-you-page';
import { EventCodesPage } from '@/features/event-codes/components/event-codes-page';
import { ManageSubpage } from '@/features/monitoring/components/manage-subpage';
import { MonitoringManagePage } from '@/features/monitoring/components/monitoring-manage-page';
import { ReportsPage } from '@/features/monitoring/components/reports-page';
import { NotificationsPage } from '@/features/notifications';
import { CreditsPage } from '@/features/subscriptions/components/credits-page';
import { MonitoringPlansPage } from '@/features/subscriptions/components/monitoring-plans-page';
import { ApiV1Redirect } from '@/features/monitoring-docs/components/api-v1-redirect';
import { MonitoringApiPage } from '@/features/monitoring-docs/components/monitoring-api-page';
import { MonitoringV1DocsPage } from '@/features/monitoring-docs/components/monitoring-v1-docs-page';
import { MonitoringV2DocsPage } from '@/features/monitoring-docs/components/monitoring-v2-docs-page';
import { PaymentHistoryPage } from '@/features/subscriptions/components/payment-history-page';
import { SearchPlansPage } from '@/features/subscriptions/components/search-plans-page';
import { SubscriptionsPage } from '@/features/subscriptions/components/subscriptions-page';
import { productName } from '@/features/subscriptions';
import { useSession } from '@/lib/session';
import { Open, Protected, PublicOnly, Splash } from './guards';
import { HelpRedirect } from './pages/help-redirect';
import { LogoutPage } from './pages/logout-page';
import { NotFoundPage } from './pages/not-found-page';
import { TestPage } from './pages/test-page';

/** One pattern for every sign-in view, so switching views keeps the screen mounted. */
const SIGN_IN_PATTERN = new RegExp(`^(?:${SIGN_IN_PATHS.join('|')})/?$`);

function Home() {
  const { status } = useSession();
  if (status === 'pending') return <Splash />;
  return <Redirect to={status === 'signed-in' ? '/search' : '/login'} replace />;
}

/** The route table: public, sign-in and protected pages. */
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
      <Route path="/help" component={HelpRedirect} />
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
      <Route path="/whois">
        <Protected title="WHOIS">
          <WhoisPage />
        </Protected>
      </Route>
      {/* Opened from mailed links, by anyone: the link is the proof, no account needed. */}
      <Route path="/entry-removal">
        <Open title="Entry Removal">
          <EntryRemovalPage />
        </Open>
      </Route>
      <Route path="/opt-out">
        <Open title="Opt-out">
          <OptOutPage />
        </Open>
      </Route>
      <Route path="/documentation/faq">
        <Protected title="Documentation / FAQ">
          <FaqPage />
        </Protected>
      </Route>
      <Route path="/documentation/search-guide">
        <Protected title="Documentation / Search Guide">
          <SearchGuidePage />
        </Protected>
      </Route>
      <Route path="/documentation/quick-start">
        <Protected title="API / Quick Start">
          <QuickStartPage />
        </Protected>
      </Route>
      <Route path="/documentation/api">
        <Protected title="Documentation / API">
          <ApiDocsPage />
        </Protected>
      </Route>
      <Route path="/documentation/api-v1" component={ApiV1Redirect} />
      <Route path="/documentation/breach-api">
        <Protected title={`Documentation / ${BREACH_API_TITLE}`}>
          <BreachApiDocsPage />
        </Protected>
      </Route>
      <Route path="/monitoring/api">
        <Protected title="Monitoring / API">
          <MonitoringApiPage />
        </Protected>
      </Route>
      <Route path="/monitoring/documentation">
        <Protected title="Monitoring / Documentation">
          <MonitoringV1DocsPage />
        </Protected>
      </Route>
      <Route path="/monitoring/documentation-v2">
        <Protected title="Monitoring / Documentation V2">
          <MonitoringV2DocsPage />
        </Protected>
      </Route>
      <Route path="/subscriptions">
        <Protected title="Subscriptions">
          <SubscriptionsPage />
        </Protected>
      </Route>
      <Route path="/subscriptions/payment-history">
        <Protected title="Subscriptions / Payment History">
          <PaymentHistoryPage />
        </Protected>
      </Route>
      {/* Purchase pages: the breadcrumb's last part names what is sold there ("Search Credits", not the path's "search-credits"). */}
      <Route path="/subscriptions/search">
        <Protected title="Subscriptions / Search">
          <SearchPlansPage />
        </Protected>
      </Route>
      <Route path="/subscriptions/search-credits">
        <Protected title={`Subscriptions / ${productName('search-credits')}`}>
          <CreditsPage kind="search-credits" />
        </Protected>
      </Route>
      <Route path="/subscriptions/whois-credits">
        <Protected title={`Subscriptions / ${productName('whois-credits')}`}>
          <CreditsPage kind="whois-credits" />
        </Protected>
      </Route>
      <Route path="/subscriptions/monitoring">
        <Protected title="Subscriptions / Monitoring">
          <MonitoringPlansPage />
        </Protected>
      </Route>
      <Route path="/checkout">
        <Protected title="Checkout">
          <CheckoutPage />
        </Protected>
      </Route>
      <Route path="/crypto-checkout">
        <Protected title="Crypto Checkout">
          <CryptoCheckoutPage />
        </Protected>
      </Route>
      <Route path="/thank-you">
        <Protected title="Thank You">
          <ThankYouPage />
        </Protected>
      </Route>
      <Route path="/event-codes">
        <Protected title="Event Codes">
          <EventCodesPage />
        </Protected>
      </Route>
      <Route path="/monitoring/manage">
        <Protected title="Monitoring">
          <MonitoringManagePage />
        </Protected>
      </Route>
      <Route path="/monitoring/manage/tasks">
        <Protected title="Monitoring / Tasks">
          <ManageSubpage />
        </Protected>
      </Route>
      <Route path="/monitoring/manage/channels">
        <Protected title="Monitoring / Channels">
          <ManageSubpage />
        </Protected>
      </Route>
      <Route path="/monitoring/reports/:id?">
        <Protected title="Monitoring / Reports">
          <ReportsPage />
        </Protected>
      </Route>
      <Route path="/notifications">
        <Protected title="Notifications">
          <NotificationsPage />
        </Protected>
      </Route>
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
