/**
 * The marketing banner: one current banner or none, set and cleared by
 * the operator (scripts/admin.ts banner:set / banner:clear), read by everyone.
 *
 * The markup is hostile input wherever it came from: banner:set refuses what the allow-list
 * (common/banner-markup.ts) would drop, and what is served is re-sanitised anyway, so a row
 * written any other way still leaves only allow-listed markup; the dashboard sanitises again
 * when it renders.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { BANNER_MAX_LENGTH, parseBannerMarkup, sanitiseBannerMarkup } from '../common/banner-markup';
import * as bannerRepo from './banner-repository';

export interface Banner {
  id: string | null;
  data: string | null;
}

/** Why `markup` cannot be a banner, or null: empty, too long, or something the allow-list drops. */
export function bannerMarkupProblem(markup: string): string | null {
  if (!markup.trim()) return 'the message is empty';
  if (markup.length > BANNER_MAX_LENGTH) return `the message is longer than ${BANNER_MAX_LENGTH} characters`;
  const { nodes, dropped } = parseBannerMarkup(markup);
  if (dropped.length) return `not allowed in a banner: ${dropped.join(', ')} (allowed: b, strong, i, em, u, br, p, span, and a with an http(s) href)`;
  if (nodes.length === 0) return 'the message is empty';
  return null;
}

export function createBannerService(db: Kysely<Database>) {
  return {
    /** The current banner as served: allow-listed markup, or {id: null, data: null}. */
    async current(): Promise<Banner> {
      const row = await bannerRepo.findCurrentBanner(db);
      return row ? { id: row.id, data: sanitiseBannerMarkup(row.markup) } : { id: null, data: null };
    },

    /** Sets a new current banner; throws with the problem when the markup is refused. */
    async set(markup: string): Promise<string> {
      const text = markup.trim();
      const problem = bannerMarkupProblem(text);
      if (problem) throw new Error(problem);
      return bannerRepo.replaceBanner(db, text);
    },

    clear: () => bannerRepo.clearCurrentBanner(db),
  };
}

export type BannerService = ReturnType<typeof createBannerService>;
