import { Link } from 'wouter';
import { SparkIcon } from '@/components/icons';
import { usePageTitle } from '@/hooks/use-page-title';
import { BRAND } from '@/lib/brand';

/** Stands in for a signed-in page whose feature has not shipped yet. */
export function ComingSoonPage({ title }: { title: string }) {
  usePageTitle(title);
  return (
    <div className="page">
      <header className="page-header">
        <h1>{title}</h1>
      </header>
      <section className="card empty-state">
        <span className="empty-icon">
          <SparkIcon width={28} height={28} />
        </span>
        <h2>{title} is coming soon</h2>
        <p className="muted">
          This part of {BRAND} is being built. Meanwhile you can manage your account from your profile.
        </p>
        <Link href="/profile" className="button button-secondary">
          Go to Profile
        </Link>
      </section>
    </div>
  );
}
