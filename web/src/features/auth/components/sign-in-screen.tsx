import { Link, useLocation, useSearch } from 'wouter';
import { Logo } from '@/components/logo';
import { usePageTitle } from '@/hooks/use-page-title';
import { BRAND, SUPPORT_URL } from '@/lib/brand';
import { useForcedTheme } from '@/lib/theme';
import { loginPathForRo, registerPathFor } from '../redirect';
import { ForgotPasswordForm } from './forgot-password-form';
import { LoginForm } from './login-form';
import { Notice } from './notice';
import { RegisterForm } from './register-form';
import { ResetPasswordForm } from './reset-password-form';
import { VerificationView } from './verification-view';
import './auth.css';

/** Tested in this order, by substring, so post-hoc-rp wins over post-hoc. */
const VIEWS = [
  'post-hoc-rp',
  'post-hoc-fp',
  'post-hoc',
  'reset-password',
  'login',
  'register',
  'forgot-password',
  'verification',
] as const;

export type SignInView = (typeof VIEWS)[number];

export function viewFromPath(path: string): SignInView {
  return VIEWS.find((view) => path.includes(view)) ?? 'login';
}

const TITLES: Record<SignInView, string> = {
  login: 'Log In',
  register: 'Register',
  'forgot-password': 'Forgot Password',
  'reset-password': 'New Password',
  verification: 'Email Verification',
  'post-hoc': 'Registered',
  'post-hoc-fp': 'Reset Requested',
  'post-hoc-rp': 'Password Updated',
};

/** One page for every sign-in view; the path picks the view. */
export function SignInScreen() {
  useForcedTheme('light');
  const [location] = useLocation();
  const search = useSearch();
  const view = viewFromPath(location);
  usePageTitle(TITLES[view]);

  const tabbed = view === 'login' || view === 'register';
  // The purchase intent (ro, q) survives switching between the two tabs.
  const loginHref = view === 'register' ? loginPathForRo(search) : '/login';
  const registerHref = view === 'login' ? registerPathFor(search) : '/register';

  return (
    <div className="auth-page">
      <header className="auth-header">
        <Logo />
        <a className="auth-help" href={SUPPORT_URL} target="_blank" rel="noopener noreferrer">
          Get Help
        </a>
      </header>

      <main className="auth-main">
        <section className="auth-card" data-view={view}>
          {tabbed && (
            <nav className="auth-tabs" aria-label="Sign in or register">
              <Link href={loginHref} className={view === 'login' ? 'active' : ''} aria-current={view === 'login' ? 'page' : undefined}>
                Login
              </Link>
              <Link
                href={registerHref}
                className={view === 'register' ? 'active' : ''}
                aria-current={view === 'register' ? 'page' : undefined}
              >
                Register
              </Link>
            </nav>
          )}

          {view === 'login' && <LoginForm registerHref={registerHref} />}
          {view === 'register' && <RegisterForm loginHref={loginHref} />}
          {/* Opt-out is for people who want no account: said where they land. */}
          {tabbed && (
            <p className="auth-switch" data-testid="auth-opt-out">
              Want your email address out of our search results? <Link href="/opt-out">Opt out</Link>, no account needed.
            </p>
          )}
          {view === 'forgot-password' && <ForgotPasswordForm />}
          {view === 'reset-password' && <ResetPasswordForm />}
          {view === 'verification' && <VerificationView />}
          {view === 'post-hoc' && (
            <Notice title="Successfully Registered!" linkHref="/login" linkText="Back to Login">
              Check your email for a verification link. You need to verify your email before you can log in.
            </Notice>
          )}
          {view === 'post-hoc-fp' && (
            <Notice title="Reset Requested" linkHref="/login" linkText="Back to Login">
              If an account matches the email you entered, we have sent it instructions to reset your password.
            </Notice>
          )}
          {view === 'post-hoc-rp' && (
            <Notice title="Updated" linkHref="/login" linkText="Login">
              Your password has been updated. You can now log in with your new password.
            </Notice>
          )}
        </section>
      </main>

      <footer className="auth-footer">
        <span>
          © {new Date().getFullYear()} {BRAND}
        </span>
        <Link href="/tos-privacy">Terms &amp; Privacy</Link>
        <Link href="/opt-out">Opt-out</Link>
      </footer>
    </div>
  );
}
