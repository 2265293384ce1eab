import { useEffect, type ReactNode } from 'react';
import '@/styles/api-docs.css';
import './help.css';

export interface TocEntry {
  id: string;
  title: string;
  children?: TocEntry[];
}

/** One section: its id is the in-page anchor (#id), its heading names it. */
export function HelpSection({ id, title, children, level = 2 }: { id: string; title: string; children: ReactNode; level?: 2 | 3 | 4 }) {
  const Heading = (['h2', 'h3', 'h4'] as const)[level - 2]!;
  return (
    <section id={id} className={`docs-section docs-level-${level}`} aria-labelledby={`${id}-title`}>
      <Heading id={`${id}-title`}>{title}</Heading>
      {children}
    </section>
  );
}

/** The help pages' frame: header, contents list beside (above, on phones) the sections. */
export function HelpLayout({
  title,
  lead,
  updated,
  aside,
  toc,
  children,
}: {
  title: string;
  lead: ReactNode;
  updated?: string;
  aside?: ReactNode;
  toc: TocEntry[];
  children: ReactNode;
}) {
  // The sections render after the browser looked for a linked #anchor: go to it now.
  useEffect(() => {
    const id = decodeURIComponent(window.location.hash.slice(1));
    if (id) document.getElementById(id)?.scrollIntoView();
  }, []);

  return (
    <div className="page docs-page help-page">
      <header className="page-header docs-header">
        <div>
          <h1>{title}</h1>
          <p className="page-lead">{lead}</p>
          {updated && <p className="docs-updated">{updated}</p>}
        </div>
        {aside}
      </header>
      <div className="docs-layout">
        <nav className="docs-toc" aria-label="Table of contents">
          <p className="docs-toc-title">Contents</p>
          <ol>
            {toc.map((entry) => (
              <li key={entry.id}>
                <a href={`#${entry.id}`}>{entry.title}</a>
                {entry.children && entry.children.length > 0 && (
                  <ol>
                    {entry.children.map((child) => (
                      <li key={child.id}>
                        <a href={`#${child.id}`}>{child.title}</a>
                      </li>
                    ))}
                  </ol>
                )}
              </li>
            ))}
          </ol>
        </nav>
        <article className="docs-content">{children}</article>
      </div>
    </div>
  );
}
