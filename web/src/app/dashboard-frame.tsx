import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { useUnreadRefresh } from '@/features/notifications';
import { useUser } from '@/features/user';
import { SUPPORT_URL } from '@/lib/brand';
import { Banner } from '@/components/banner';
import { BellIcon, CloseIcon, MenuIcon } from '@/components/icons';
import { Logo } from '@/components/logo';
import { useEscape } from '@/components/use-escape';
import { NavList } from '@/components/layouts/nav-list';
import { accountLinks, PRODUCT_LINKS } from '@/components/layouts/navigation';
import { ThemeSwitch } from '@/components/layouts/theme-switch';

/**
 * Side and top navigation around every signed-in page. Part of the app shell: it shows what
 * features own (the user's name, the unread dot kept current), which shared components may not import.
 */
export function DashboardFrame({ title, children }: { title: string; children: ReactNode }) {
  const { data: user } = useUser();
  const [location] = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const account = accountLinks(SUPPORT_URL, Boolean(user?.has_notifications));
  useUnreadRefresh(Boolean(user));

  // A navigation closes the mobile menu.
  useEffect(() => setMenuOpen(false), [location]);
  // Escape closes it too, and the focus goes back to its button.
  const closeMenu = useCallback(() => {
    setMenuOpen(false);
    menuButton.current?.focus();
  }, []);
  useEscape(menuOpen, closeMenu);

  return (
    <div className={`frame${menuOpen ? ' menu-open' : ''}`}>
      <aside className="sidebar" id="main-navigation" aria-label="Main navigation">
        <div className="sidebar-brand">
          <Logo />
          <button type="button" className="icon-button mobile-only" aria-label="Close menu" onClick={() => setMenuOpen(false)}>
            <CloseIcon />
          </button>
        </div>
        <nav className="sidebar-nav">
          <NavList links={PRODUCT_LINKS} onNavigate={() => setMenuOpen(false)} />
          <div className="nav-divider" />
          <NavList links={account} onNavigate={() => setMenuOpen(false)} />
        </nav>
        <div className="sidebar-footer mobile-only">
          <ThemeSwitch withLabel />
        </div>
      </aside>
      <div className="menu-scrim mobile-only" onClick={() => setMenuOpen(false)} aria-hidden="true" />

      <div className="frame-main">
        <Banner framed />
        <header className="topbar">
          <button
            type="button"
            className="icon-button mobile-only"
            ref={menuButton}
            aria-label="Open menu"
            aria-expanded={menuOpen}
            aria-controls="main-navigation"
            onClick={() => setMenuOpen(true)}
          >
            <MenuIcon />
          </button>
          <nav className="breadcrumb" aria-label="Breadcrumb">
            <span>{title}</span>
          </nav>
          <div className="topbar-actions">
            {user && (
              <span className="credits desktop-only" title="Search credits">
                {user.search_credits.toLocaleString()} CR
              </span>
            )}
            <Link href="/notifications" className="icon-button topbar-bell" aria-label="Notifications">
              <BellIcon />
              {user?.has_notifications && <span className="nav-dot" data-testid="bell-dot" />}
            </Link>
            <span className="desktop-only">
              <ThemeSwitch />
            </span>
            {user && (
              <Link href="/profile" className="avatar" title={user.email} aria-label="Profile">
                {user.email.charAt(0).toUpperCase()}
              </Link>
            )}
          </div>
        </header>
        <main className="frame-content" id="main-content" tabIndex={-1}>{children}</main>
      </div>
    </div>
  );
}
