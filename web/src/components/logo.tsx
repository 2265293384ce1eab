import { Link } from 'wouter';
import { BRAND } from '@/lib/brand';

/** The product mark: a drop over the rim of a well. */
export function LogoMark({ size = 28 }: { size?: number }) {
  return (
    <svg viewBox="0 0 32 32" width={size} height={size} aria-hidden="true" focusable="false" className="logo-mark">
      <rect width="32" height="32" rx="8" className="logo-mark-bg" />
      <path d="M16 6c-3.6 5.2-7 9.4-7 13.4a7 7 0 0 0 14 0C23 15.4 19.6 11.2 16 6Z" className="logo-mark-drop" />
      <path d="M12.5 20.5a3.5 3.5 0 0 0 3.5 3.5" className="logo-mark-shine" />
    </svg>
  );
}

/** Mark plus brand name, linking home. */
export function Logo({ className }: { className?: string }) {
  return (
    <Link href="/" className={`logo ${className ?? ''}`} aria-label={`${BRAND} home`}>
      <LogoMark />
      <span className="logo-text">{BRAND}</span>
    </Link>
  );
}
