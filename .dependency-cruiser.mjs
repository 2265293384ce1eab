// Import boundaries, checked by `npm run lint` (docs/boundaries.md explains the layout).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Server code every feature may use: shared rules, infrastructure, the database types. */
const SERVER_SHARED = '^server/src/(common|infra|db)/';
/** A server feature's public entry: its services and its shared TypeBox schemas. */
const SERVER_ENTRY = '^server/src/.+-(service|schemas)\\.ts$';
/** A feature's operator commands (`npm run admin`), public to the scripts that run them. */
const SERVER_COMMANDS = '^server/src/[^/]+/[^/]+-commands\\.ts$';
/** The app shell and the config: what starts a server and what configures it. */
const SERVER_SHELL = '^server/src/[^/]+\\.ts$';
/** A dashboard feature's public entry: its index module. */
const WEB_ENTRY = '^web/src/features/[^/]+/index\\.tsx?$';

/**
 * Imports that break a rule and are tolerated until their code moves. Empty: every feature
 * calls other features through their services. The lint reports an entry here as known; a
 * new violation fails, and so does an entry that no longer happens
 * (scripts/check-boundaries.mjs), so the list only shrinks.
 */
const KNOWN = [];

export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles anywhere: split the shared part into its own module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'server-feature-private',
      severity: 'error',
      comment: "A server feature imports another feature only through its public entry (*-service.ts, *-schemas.ts), never its repository, routes or internals.",
      from: { path: '^server/src/([^/]+)/', pathNot: SERVER_SHARED },
      to: { path: '^server/src/[^/]+/', pathNot: ['^server/src/$1/', SERVER_SHARED, SERVER_ENTRY] },
    },
    {
      name: 'tools-server-public',
      severity: 'error',
      comment:
        "scripts/ and loadtest/ reach the server through a feature's public entry (*-service.ts, *-schemas.ts, its *-commands.ts), the shared layers and the app shell, never a repository or other internals.",
      from: { path: '^(scripts|loadtest)/' },
      to: { path: '^server/src/', pathNot: [SERVER_SHARED, SERVER_ENTRY, SERVER_COMMANDS, SERVER_SHELL] },
    },
    {
      name: 'server-shared-layers',
      severity: 'error',
      comment: 'common/, infra/ and db/ are below the features: they import no feature.',
      from: { path: SERVER_SHARED },
      to: { path: '^server/src/', pathNot: [SERVER_SHARED, '^server/src/config\\.ts$'] },
    },
    {
      name: 'server-common-pure',
      severity: 'error',
      comment: 'common/ is shared with the dashboard: it imports nothing else of the server.',
      from: { path: '^server/src/common/' },
      to: { path: '^(server|engine|scripts)/', pathNot: '^server/src/common/' },
    },
    {
      name: 'server-not-web',
      severity: 'error',
      comment: 'The server does not import the dashboard.',
      from: { path: '^server/src/' },
      to: { path: '^web/' },
    },
    {
      name: 'web-server-common-only',
      severity: 'error',
      comment: 'The dashboard imports from the server only the shared rules of server/src/common (as @common/...).',
      from: { path: '^web/src/' },
      to: { path: '^(server|engine|scripts|migrations|loadtest)/', pathNot: '^server/src/common/' },
    },
    {
      name: 'web-feature-private',
      severity: 'error',
      comment: "A dashboard feature imports another feature only through its index.ts.",
      from: { path: '^web/src/features/([^/]+)/' },
      to: { path: '^web/src/features/[^/]+/', pathNot: ['^web/src/features/$1/', WEB_ENTRY] },
    },
    {
      name: 'web-shared-not-features',
      severity: 'error',
      comment: 'web/src/{lib,components,hooks} are below the features: they import no feature and not the app shell.',
      from: { path: '^web/src/(lib|components|hooks)/' },
      to: { path: '^web/src/(features|app)/' },
    },
    {
      name: 'web-features-not-app',
      severity: 'error',
      comment: 'Features do not import the app shell (router, guards, pages): the shell imports them.',
      from: { path: '^web/src/features/' },
      to: { path: '^web/src/app/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/|^engine/target/|^engine/build/|^web/dist/' },
    // Type-only imports count: a cycle of types is still a cycle to read through.
    tsPreCompilationDeps: true,
    // The dashboard's paths (@/..., @common/...); the server uses relative imports only.
    tsConfig: { fileName: path.join(HERE, 'web', 'tsconfig.json') },
    knownViolations: KNOWN.map(([name, from, to]) => ({ from, to, rule: { name, severity: 'error' } })),
  },
};
