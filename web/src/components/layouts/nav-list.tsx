import { Link, useLocation } from 'wouter';
import { ExternalIcon } from '../icons';
import { pathSegments, type NavLink } from './navigation';

/** One group of navigation links, highlighted from the current path. */
export function NavList({ links, onNavigate }: { links: NavLink[]; onNavigate?: () => void }) {
  const [location] = useLocation();
  const [section, subSection] = pathSegments(location);

  return (
    <ul className="nav-list">
      {links.map((link) => {
        const Icon = link.icon;
        const active = link.section !== undefined && link.section === section;
        if (link.external) {
          return (
            <li key={link.label}>
              <a className="nav-link" href={link.href} target="_blank" rel="noopener noreferrer" onClick={onNavigate}>
                <Icon />
                <span>{link.label}</span>
                <ExternalIcon className="nav-external" width={13} height={13} />
              </a>
            </li>
          );
        }
        return (
          <li key={link.label}>
            <Link
              href={link.href}
              className={`nav-link${active ? ' active' : ''}`}
              aria-current={active && !link.children ? 'page' : undefined}
              onClick={onNavigate}
            >
              <Icon />
              <span>{link.label}</span>
              {link.unread && <span className="nav-dot" aria-label="unread notifications" data-testid="unread-dot" />}
            </Link>
            {link.children && (
              <ul className="nav-sublist">
                {link.children.map((child) => {
                  const childActive = active && child.segment === subSection;
                  return (
                    <li key={child.href}>
                      <Link
                        href={child.href}
                        className={`nav-sublink${childActive ? ' active' : ''}`}
                        aria-current={childActive ? 'page' : undefined}
                        onClick={onNavigate}
                      >
                        {child.label}
                      </Link>
                    </li>
                  );
                })}
              </ul>
            )}
          </li>
        );
      })}
    </ul>
  );
}
