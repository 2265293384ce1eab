import type { ComponentType, SVGProps } from 'react';
import {
  BellIcon,
  BookIcon,
  CardIcon,
  DatabaseIcon,
  GlobeIcon,
  LifeBuoyIcon,
  LogoutIcon,
  RadarIcon,
  SearchIcon,
  UserIcon,
} from '../icons';

export interface NavLink {
  label: string;
  href: string;
  icon: ComponentType<SVGProps<SVGSVGElement>>;
  /** First path segment that highlights this entry. */
  section?: string;
  /** Second-level entries, highlighted from the second path segment. */
  children?: { label: string; href: string; segment: string }[];
  external?: boolean;
  /** Shows the unread dot (has_notifications). */
  unread?: boolean;
}

/** The sidebar and the mobile menu list the same links. */
export const PRODUCT_LINKS: NavLink[] = [
  { label: 'Search', href: '/search', icon: SearchIcon, section: 'search' },
  {
    label: 'Monitoring',
    href: '/monitoring/manage',
    icon: RadarIcon,
    section: 'monitoring',
    children: [
      { label: 'Manage', href: '/monitoring/manage', segment: 'manage' },
      { label: 'Reports', href: '/monitoring/reports', segment: 'reports' },
    ],
  },
  { label: 'WHOIS', href: '/whois', icon: GlobeIcon, section: 'whois' },
  {
    label: 'Documentation',
    href: '/documentation/search-guide',
    icon: BookIcon,
    section: 'documentation',
    children: [
      { label: 'Search Guide', href: '/documentation/search-guide', segment: 'search-guide' },
      { label: 'FAQ', href: '/documentation/faq', segment: 'faq' },
      { label: 'API', href: '/documentation/api', segment: 'api' },
      { label: 'Breach API v3 and Pwned Passwords', href: '/documentation/breach-api', segment: 'breach-api' },
    ],
  },
  { label: 'Data Wells', href: '/data-wells', icon: DatabaseIcon, section: 'data-wells' },
];

export function accountLinks(supportUrl: string, hasNotifications: boolean): NavLink[] {
  return [
    { label: 'Support', href: supportUrl, icon: LifeBuoyIcon, external: true },
    { label: 'Notifications', href: '/notifications', icon: BellIcon, section: 'notifications', unread: hasNotifications },
    { label: 'Subscriptions', href: '/subscriptions', icon: CardIcon, section: 'subscriptions' },
    { label: 'Profile', href: '/profile', icon: UserIcon, section: 'profile' },
    { label: 'Logout', href: '/logout', icon: LogoutIcon },
  ];
}

/** The first and second path segments: /monitoring/reports/7 → ['monitoring', 'reports']. */
export function pathSegments(path: string): [string, string] {
  const [first = '', second = ''] = path.split('/').filter(Boolean);
  return [first, second];
}
