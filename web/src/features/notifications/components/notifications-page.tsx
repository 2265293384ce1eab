import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { NOTIFICATION_PAGE_SIZES } from '@common/monitoring-rules';
import { BellIcon, BookIcon, GlobeIcon, RadarIcon, SearchIcon, TrashIcon } from '@/components/icons';
import { Paginator } from '@/components/paginator';
import { usePageTitle } from '@/hooks/use-page-title';
import { relativeTime } from '@/lib/relative-time';
import type { InboxNotification } from '../api/notifications-api';
import { useNotifications } from '../api/use-notifications';
import { LoadFailed } from '@/components/load-failed';
import './notifications.css';

const TYPE_LABELS: Record<string, string> = {
  report: 'New Report',
  'delivery-failed': 'Delivery Failed',
  'search-expiration': 'Search Expiration',
  'monitoring-expiration': 'Monitoring Expiration',
  'enterprise-expiration': 'Enterprise Expiration',
  'low-search-credits': 'Low Search Credits',
  'low-whois-credits': 'Low WHOIS Credits',
  global: 'Announcement',
  security: 'Account Security',
};

const SHORTCUTS = [
  { href: '/search', label: 'Search', icon: SearchIcon },
  { href: '/monitoring/manage', label: 'Monitoring', icon: RadarIcon },
  { href: '/documentation/api', label: 'API Documentation', icon: BookIcon },
  { href: '/whois', label: 'WHOIS', icon: GlobeIcon },
];

/** /notifications: the inbox, 20 or 40 a page, newest first. */
export function NotificationsPage() {
  usePageTitle('Notifications');
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState<number>(NOTIFICATION_PAGE_SIZES[0]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  // Removed rows disappear at once; they come back only if the server refuses.
  const [hidden, setHidden] = useState<Set<string>>(new Set());
  const { data, isLoading, error, mutate, remove } = useNotifications(page, perPage);
  const rows = (data?.notifications ?? []).filter((row) => !hidden.has(row.id));
  const pages = data ? Math.max(1, Math.ceil(data.total / perPage)) : 1;
  const chosen = rows.filter((row) => selected.has(row.id));
  const allSelected = rows.length > 0 && chosen.length === rows.length;

  // Deleting the last rows of a later page goes back a page rather than showing an empty one.
  const emptied = data !== undefined && rows.length === 0 && page > 1;
  useEffect(() => {
    if (emptied) setPage((current) => Math.max(1, current - 1));
  }, [emptied]);

  const removeRows = async (ids: string[]) => {
    setHidden((current) => new Set([...current, ...ids]));
    setSelected((current) => new Set([...current].filter((id) => !ids.includes(id))));
    if (!(await remove(ids))) setHidden((current) => new Set([...current].filter((id) => !ids.includes(id))));
  };

  const select = (id: string, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  return (
    <div className="page notifications-page">
      <header className="page-header">
        <div>
          <h1>Notifications</h1>
          <p className="page-lead">New reports, deliveries that failed, plans about to end and announcements.</p>
        </div>
      </header>

      {!data && error && !isLoading ? (
        <LoadFailed title="Could not load your notifications" retry={mutate} />
      ) : !data ? (
        <section className="card status-card" aria-busy={isLoading}>
          {isLoading && <span className="spinner" />}
          <p className="muted">{isLoading ? 'Loading Notifications...' : 'Notifications are not available right now.'}</p>
        </section>
      ) : rows.length === 0 && page === 1 ? (
        <section className="card empty-state" data-testid="notifications-empty">
          <span className="empty-icon">
            <BellIcon width={28} height={28} />
          </span>
          <h2>You don&apos;t have any notifications</h2>
          <p className="muted">Monitoring reports and account notices will show up here. Meanwhile:</p>
          <nav className="quick-links" aria-label="Shortcuts">
            {SHORTCUTS.map(({ href, label, icon: Icon }) => (
              <Link key={href} href={href} className="chip">
                <Icon width={15} height={15} />
                {label}
              </Link>
            ))}
          </nav>
        </section>
      ) : (
        <section className="card inbox" aria-label="Inbox">
          <div className="inbox-toolbar">
            <label className="checkbox">
              <input
                type="checkbox"
                aria-label="Select all"
                checked={allSelected}
                onChange={(event) => setSelected(event.currentTarget.checked ? new Set(rows.map((row) => row.id)) : new Set())}
              />
              <span>Select all</span>
            </label>
            <button type="button" className="button button-danger button-small" disabled={chosen.length === 0} onClick={() => void removeRows(chosen.map((row) => row.id))}>
              <TrashIcon width={15} height={15} />
              Delete Selected{chosen.length > 0 ? ` (${chosen.length})` : ''}
            </button>
            <label className="inbox-per-page">
              <span className="muted">Per page</span>
              <select
                className="input"
                aria-label="Per page"
                value={perPage}
                onChange={(event) => {
                  setPerPage(Number(event.currentTarget.value));
                  setPage(1);
                  setSelected(new Set());
                }}
              >
                {NOTIFICATION_PAGE_SIZES.map((size) => (
                  <option key={size} value={size}>
                    {size}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <ul className="inbox-list">
            {rows.map((row) => (
              <NotificationRow
                key={row.id}
                row={row}
                selected={selected.has(row.id)}
                onSelect={(on) => select(row.id, on)}
                onDelete={() => void removeRows([row.id])}
              />
            ))}
          </ul>
          <Paginator
            page={page}
            pages={pages}
            onPage={(next) => {
              setPage(next);
              setSelected(new Set());
            }}
          />
        </section>
      )}
    </div>
  );
}

function NotificationRow({ row, selected, onSelect, onDelete }: { row: InboxNotification; selected: boolean; onSelect: (on: boolean) => void; onDelete: () => void }) {
  const label = TYPE_LABELS[row.type] ?? 'Notice';
  return (
    <li className={`inbox-row${row.seen ? '' : ' unseen'}${selected ? ' selected' : ''}`} data-testid="notification" data-seen={row.seen}>
      <input type="checkbox" className="inbox-check" aria-label={`Select ${label}: ${row.data}`} checked={selected} onChange={(event) => onSelect(event.currentTarget.checked)} />
      <div className="inbox-body">
        <p className="inbox-meta">
          {!row.seen && <span className="inbox-new">New</span>}
          <span className="inbox-type">{label}</span>
          <span className="muted" title={new Date(row.created).toLocaleString('en-US')}>
            {relativeTime(row.created)}
          </span>
        </p>
        <p className="inbox-text" data-testid="notification-text">
          {row.data}
        </p>
        {row.link && row.link.startsWith('/') && !row.link.startsWith('//') && (
          <Link href={row.link} className="link inbox-link">
            {row.type === 'report' ? 'View Report' : 'Open'}
          </Link>
        )}
      </div>
      <button type="button" className="icon-button" aria-label={`Delete ${label}`} onClick={onDelete}>
        <TrashIcon width={16} height={16} />
      </button>
    </li>
  );
}
