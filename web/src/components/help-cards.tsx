import type { ComponentType } from 'react';
import { Link } from 'wouter';

export interface HelpCard {
  href: string;
  title: string;
  text: string;
  icon: ComponentType;
}

/** The row of help cards under a tool (search, WHOIS): links to guides and purchases. */
export function HelpCards({ cards, className }: { cards: readonly HelpCard[]; className: string }) {
  return (
    <nav className={`tile-grid tile-grid-3 ${className}`} aria-label="Help">
      {cards.map(({ href, title, text, icon: Icon }) => (
        <Link key={href} href={href} className="tile">
          <Icon />
          <span className="tile-title">{title}</span>
          <span className="tile-text">{text}</span>
        </Link>
      ))}
    </nav>
  );
}
