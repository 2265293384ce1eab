import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { BannerService } from './banner-service';

const Banner = Type.Object({
  id: Type.Union([Type.String({ description: 'Changes whenever a new banner is set; a dismissal remembers it.' }), Type.Null()]),
  data: Type.Union([Type.String({ description: 'Allow-listed markup: b, strong, i, em, u, br, p, span, a (http/https href only).' }), Type.Null()]),
});

export function registerBannerRoutes(app: FastifyInstance, deps: { banners: BannerService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/marketing/banner',
    {
      schema: {
        operationId: 'getMarketingBanner',
        tags: ['marketing'],
        summary: 'The current marketing banner, or {id: null, data: null} when there is none. No authorization. Revalidated with an ETag (304 while unchanged).',
        response: { 200: Banner, 304: Type.Null() },
      },
    },
    async (request, reply) => {
      const banner = await deps.banners.current();
      // What is served, hashed: a new banner or a changed sanitiser is a new tag.
      const etag = `"${createHash('sha256').update(JSON.stringify(banner)).digest('base64url').slice(0, 22)}"`;
      reply.header('cache-control', 'no-cache').header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send(null);
      return banner;
    },
  );
}
