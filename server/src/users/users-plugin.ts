/** Users: the account's profile, settings and API key (dashboard routes). A new key is told to search's meter. */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { createUserService } from './user-service';
import { registerUserRoutes } from './user-routes';

export const usersPlugin = fp<AppDeps>(
  async (app, { db, config }) => {
    const users = createUserService(db, { onApiKeyChanged: app.searchMeter.forget });
    registerUserRoutes(app, { users, auth: app.auth, apiKeyHeader: config.apiKeyHeader });
  },
  { name: 'users', fastify: '5.x', dependencies: ['search-meter', 'auth'] },
);
