import { createElement, useEffect, useLayoutEffect, useState, type ReactNode } from 'react';
import useSWR, { SWRConfig, type Cache } from 'swr';
import type { BannerNode } from '@common/banner-markup';
import { api } from '@/lib/api';
import { dismissBanner, isBannerDismissed } from '@/lib/banner-dismissal';
import { createStore } from '@/lib/store';
import { CloseIcon } from './icons';
import './banner.css';

interface BannerResponse {
  id: string | null;
  data: string | null;
}

/**
 * The banner's markup as elements, built from the allow-list parser's tree (the same one the
 * server uses): the string itself never reaches innerHTML, text stays text, and only
 * http(s) links survive, opened apart.
 */
function renderNodes(nodes: BannerNode[]): ReactNode[] {
  return nodes.map((node, index) => {
    if (typeof node === 'string') return node;
    if (node.tag === 'br') return <br key={index} />;
    if (node.tag === 'a' && node.href) {
      return createElement('a', { key: index, href: node.href, rel: 'noopener noreferrer', target: '_blank' }, ...renderNodes(node.children));
    }
    // A link whose href was dropped is plain text, not something that looks clickable.
    return createElement(node.tag === 'a' ? 'span' : node.tag, { key: index }, ...renderNodes(node.children));
  });
}

/**
 * The markup's tree, or null until it is parsed (or when `markup` is null). The parser and its
 * sanitiser load only when there is a banner to show: most visits have none, and they stay
 * out of the dashboard's first download.
 */
function useBannerNodes(markup: string | null): BannerNode[] | null {
  const [parsed, setParsed] = useState<{ markup: string; nodes: BannerNode[] } | null>(null);
  useEffect(() => {
    if (!markup) return;
    let wanted = true;
    import('@common/banner-markup')
      .then(({ parseBannerMarkup }) => {
        if (wanted) setParsed({ markup, nodes: parseBannerMarkup(markup).nodes });
      })
      // A parser that cannot load (a deploy replaced its chunk) shows no banner rather than raw markup.
      .catch(() => undefined);
    return () => {
      wanted = false;
    };
  }, [markup]);
  return markup && parsed?.markup === markup ? parsed.nodes : null;
}

/** How many banners the dashboard frame shows now: while one does, the page-level one does not. */
const framedBanners = createStore(0);

/**
 * The banner's own SWR cache: signing out forgets every cached resource of the default cache
 * without refetching (lib/session.ts), and the banner is nobody's and must stay.
 */
const bannerCache: Cache = new Map();
const bannerSWR = { provider: () => bannerCache };

function useBanner() {
  return useSWR('/marketing/banner', (path: string) => api.get<BannerResponse>(path, 'none'), { revalidateOnFocus: true, dedupingInterval: 30_000 });
}

/**
 * The marketing banner: shown everywhere unless its id is the one dismissed
 * in the last year. `framed` is the one inside the dashboard frame (above its top bar); the
 * App's own one covers every other screen (sign-in, 404, legal).
 */
export function Banner({ framed = false }: { framed?: boolean }) {
  return (
    <SWRConfig value={bannerSWR}>
      <BannerBar framed={framed} />
    </SWRConfig>
  );
}

/** The current banner unless there is none or it was dismissed (now, or within the year). */
function undismissed(data: BannerResponse | undefined, dismissedNow: string | null): { id: string; markup: string } | null {
  if (!data?.id || !data.data || dismissedNow === data.id || isBannerDismissed(data.id)) return null;
  return { id: data.id, markup: data.data };
}

function BannerBar({ framed }: { framed: boolean }) {
  const { data } = useBanner();
  const framedCount = framedBanners.use();
  const [dismissedNow, setDismissedNow] = useState<string | null>(null);

  useLayoutEffect(() => {
    if (!framed) return;
    framedBanners.set(framedBanners.get() + 1);
    return () => framedBanners.set(framedBanners.get() - 1);
  }, [framed]);

  // The page-level banner steps aside while the frame shows its own.
  const shown = framed || framedCount === 0 ? undismissed(data, dismissedNow) : null;
  const nodes = useBannerNodes(shown?.markup ?? null);
  if (!shown || !nodes?.length) return null;
  const { id } = shown;

  return (
    <div className="marketing-banner" role="region" aria-label="Announcement" data-banner-id={id}>
      <div className="marketing-banner-text">{renderNodes(nodes)}</div>
      <button
        type="button"
        className="marketing-banner-close"
        aria-label="Dismiss announcement"
        onClick={() => {
          dismissBanner(id);
          setDismissedNow(id);
        }}
      >
        <CloseIcon width={16} height={16} />
      </button>
    </div>
  );
}
