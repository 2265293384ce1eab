import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { CheckIcon } from '@/components/icons';

/** A finished step of the sign-in flow: a title, a sentence and where to go next. */
export function Notice({
  title,
  children,
  linkHref,
  linkText,
}: {
  title: string;
  children?: ReactNode;
  linkHref: string;
  linkText: string;
}) {
  return (
    <div className="auth-notice">
      <span className="auth-notice-icon">
        <CheckIcon width={26} height={26} />
      </span>
      <h1>{title}</h1>
      {children && <p>{children}</p>}
      <Link href={linkHref} className="button button-primary button-block">
        {linkText}
      </Link>
    </div>
  );
}
