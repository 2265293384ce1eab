import { Link } from 'wouter';
import { AlertIcon, CheckIcon } from '@/components/icons';

/**
 * The API checklist (N/3): key valid, search access, credits above 0; a failed item
 * links to where it is fixed. Shown on /documentation/api and /documentation/quick-start.
 */
export function ApiChecklist({ keyValid, searchAccess, credits }: { keyValid: boolean | undefined; searchAccess: boolean | undefined; credits: number | undefined }) {
  const items = [
    { ok: keyValid, label: 'API key valid', fix: null },
    { ok: searchAccess, label: 'Account has search access', fix: { href: '/subscriptions/search', label: 'Get a search subscription' } },
    {
      ok: credits === undefined ? undefined : credits > 0,
      label: 'Search credits above 0',
      fix: { href: '/subscriptions/search-credits', label: 'Buy search credits' },
    },
  ];
  const passed = items.filter((item) => item.ok === true).length;
  return (
    <div className="checklist card" data-testid="api-checklist">
      <div className="checklist-head">
        <span className="setting-label">Ready to call the API</span>
        <span className={`checklist-score${passed === items.length ? ' done' : ''}`} data-testid="checklist-score">
          {passed}/{items.length}
        </span>
      </div>
      <ul className="checklist-items">
        {items.map((item) => (
          <li key={item.label} className={item.ok === true ? 'ok' : item.ok === false ? 'failed' : 'pending'} data-testid="checklist-item">
            {item.ok === false ? <AlertIcon width={16} height={16} /> : <CheckIcon width={16} height={16} />}
            <span>{item.label}</span>
            {item.ok === false &&
              (item.fix ? (
                <Link href={item.fix.href} className="checklist-fix">
                  {item.fix.label}
                </Link>
              ) : (
                <span className="checklist-fix muted">Generate a key above</span>
              ))}
          </li>
        ))}
      </ul>
    </div>
  );
}
