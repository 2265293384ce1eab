import { fileURLToPath } from 'node:url';
import { defineConfig, type Alias } from 'vite';

const fromHere = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The source is written against React 19; the shipped bundle runs on preact/compat
 * (a fraction of React's size, for every first visit). Development keeps real React for its warnings.
 */
const preactCompat: Alias[] = [
  { find: /^react$/, replacement: 'preact/compat' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/compat/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/compat/jsx-dev-runtime' },
];

/** Paths served by the API; everything else is a dashboard route (index.html). */
const API_PREFIXES = [
  '/authentication',
  '/registration',
  '/user',
  '/search',
  '/whois',
  '/datawells',
  '/request-entry-removal',
  '/remove-entry',
  '/privacy',
  '/notifications',
  '/notification-channels',
  '/subscriptions',
  '/monitoring',
  '/payments',
  '/misc',
  '/marketing',
  '/v2',
  '/api/v3',
  '/range',
];

const apiTarget = process.env.API_URL ?? 'http://localhost:3000';

export default defineConfig(({ command }) => ({
  resolve: {
    alias: [
      { find: /^@common\//, replacement: fromHere('../server/src/common/') },
      { find: /^@\//, replacement: fromHere('./src/') },
      ...(command === 'build' ? preactCompat : []),
    ],
  },
  build: {
    // Beside the server's bundles: dist/ is what ships (scripts/build.mjs).
    outDir: '../dist/web',
    emptyOutDir: true,
    sourcemap: 'hidden',
    target: 'es2022',
    rolldownOptions: {
      // SWR marks its modules 'use client' for React Server Components; irrelevant here.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: {
    proxy: {
      // Several API paths double as page routes (/search, /subscriptions…): a browser
      // navigation asks for HTML and gets the dashboard, fetch() calls reach the API.
      ...Object.fromEntries(
        API_PREFIXES.map((prefix) => [
          prefix,
          {
            target: apiTarget,
            changeOrigin: true,
            bypass: (req: { headers: { accept?: string } }) =>
              req.headers.accept?.includes('text/html') ? '/index.html' : undefined,
          },
        ]),
      ),
      // Served by the API whatever the browser asks for: the sandbox card overlay is a page of the server's.
      '/sandbox': { target: apiTarget, changeOrigin: true },
      '/webhooks': { target: apiTarget, changeOrigin: true },
      '/ws': { target: apiTarget.replace(/^http/, 'ws'), ws: true },
    },
  },
}));
