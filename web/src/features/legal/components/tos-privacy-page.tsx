import { useEffect, useMemo, useState } from 'react';
import { Link } from 'wouter';
import { Logo } from '@/components/logo';
import { usePageTitle } from '@/hooks/use-page-title';
import { BRAND } from '@/lib/brand';
import { useSession } from '@/lib/session';
import { privacySections, termsSections, type LegalSection } from './legal-sections';
import './legal.css';

/** A section counts as current once its top passes this far below the viewport top. */
const ACTIVE_OFFSET_PX = 120;

/** The section whose heading was scrolled past last. */
function useActiveSection(ids: string[]): string {
  const [active, setActive] = useState(ids[0] ?? '');
  useEffect(() => {
    let frame = 0;
    const update = () => {
      frame = 0;
      let current = ids[0] ?? '';
      for (const id of ids) {
        const top = document.getElementById(id)?.getBoundingClientRect().top;
        if (top !== undefined && top - ACTIVE_OFFSET_PX <= 0) current = id;
      }
      // At the very bottom the last sections may never reach the offset.
      if (window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2) current = ids.at(-1) ?? current;
      setActive(current);
    };
    const onScroll = () => {
      frame ||= requestAnimationFrame(update);
    };
    update();
    window.addEventListener('scroll', onScroll, { passive: true });
    window.addEventListener('resize', onScroll);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener('scroll', onScroll);
      window.removeEventListener('resize', onScroll);
    };
  }, [ids]);
  return active;
}

function SectionLinks({ title, sections, active }: { title: string; sections: LegalSection[]; active: string }) {
  return (
    <>
      <p className="legal-nav-title">{title}</p>
      <ul>
        {sections.map((section) => (
          <li key={section.id}>
            <a href={`#${section.id}`} className={section.id === active ? 'active' : ''} aria-current={section.id === active ? 'true' : undefined}>
              {section.title}
            </a>
          </li>
        ))}
      </ul>
    </>
  );
}

export function TosPrivacyPage() {
  usePageTitle('Terms of Service & Privacy Policy');
  const { status } = useSession();
  const parts = useMemo(
    () => [
      { title: 'Terms of Service', sections: termsSections() },
      { title: 'Privacy Policy', sections: privacySections() },
    ],
    [],
  );
  const ids = useMemo(() => parts.flatMap((part) => part.sections.map((section) => section.id)), [parts]);
  const rightsId = parts[1]!.sections.find((section) => section.title.endsWith('Your Rights'))?.id;
  const active = useActiveSection(ids);

  const jumpTo = (id: string) => document.getElementById(id)?.scrollIntoView({ behavior: 'smooth' });

  return (
    <div className="legal-page">
      <header className="legal-header">
        <Logo />
        <nav className="legal-header-links" aria-label="Site">
          <Link href="/">Home</Link>
          {/* Login for anonymous visitors only: a signed-in one has nothing to log in to. */}
          {status === 'signed-out' && <Link href="/login">Login</Link>}
          <Link href="/help">Help</Link>
          <Link href="/subscriptions/search" className="button button-primary button-small">
            Subscribe
          </Link>
        </nav>
      </header>

      <label className="legal-quick-nav">
        <span>Jump to section</span>
        <select className="input" value={active} onChange={(event) => jumpTo(event.currentTarget.value)}>
          {parts.map(({ title, sections }) => (
            <optgroup key={title} label={title}>
              {sections.map((section) => (
                <option key={section.id} value={section.id}>
                  {section.title}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </label>

      <div className="legal-layout">
        <nav className="legal-nav" aria-label="Sections">
          {parts.map(({ title, sections }) => (
            <SectionLinks key={title} title={title} sections={sections} active={active} />
          ))}
        </nav>

        <article className="legal-content">
          <h1>Terms of Service &amp; Privacy Policy</h1>
          <p className="legal-updated">Updated Nov 13, 2020</p>
          {/* For people who never meant to have an account, who read this page first; Your Rights says more. */}
          <p className="legal-opt-out" data-testid="legal-opt-out">
            Is your email address in a breach we hold? Anyone can opt it out of every search, without an account, on the{' '}
            <Link href="/opt-out">opt-out page</Link>. <a href={`#${rightsId}`}>Your Rights</a> below says what it does.
          </p>

          {parts.map(({ title, sections }) => (
            <div key={title}>
              <h2 className="legal-part">{title}</h2>
              {sections.map((section) => (
                <section key={section.id} id={section.id} className="legal-section">
                  <h3>{section.title}</h3>
                  {section.body}
                </section>
              ))}
            </div>
          ))}
        </article>
      </div>

      <footer className="legal-footer">
        <div>
          <strong>{BRAND}</strong>
          <address>
            100 Example Street, Suite 200
            <br />
            Springfield, ST 00000, United States
          </address>
        </div>
        <div>
          <span>Phone: +1 (555) 010-0100</span>
          <span>
            Email: <a href="mailto:support@example.com">support@example.com</a>
          </span>
        </div>
      </footer>
    </div>
  );
}
