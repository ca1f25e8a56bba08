/** Service-level tests: the App over a fresh database, and contexts for viewers, with no HTTP in between. */
import { PackageStorage } from '../../src/modules/packages/storage.js';
import { createApp, createContext, type App, type Context } from '../../src/context.js';
import { loadConfig } from '../../src/config.js';
import type { Viewer } from '../../src/auth/viewer.js';
import { EventBus } from '../../src/events/bus.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { RepositoryStorages } from '../../src/git/storages.js';
import { ArtifactStorage } from '../../src/ci/artifact-storage.js';
import { UploadStorage } from '../../src/uploads/storage.js';
import { createLogger } from '../../src/logger.js';
import { UsersService, type UserRow } from '../../src/modules/users/service.js';
import { freshDatabase } from './db.js';
import { unique } from './factories.js';

export interface ServiceHarness {
  app: App;
  /** A user straight in the database (no API call), and a context acting as them with the given scopes. */
  user(options?: { admin?: boolean; external?: boolean; scopes?: string[] }): Promise<{ row: UserRow; viewer: Viewer; ctx: Context }>;
  anonymous(): Context;
  /** A new request's context for the viewer. */
  contextFor(viewer: Viewer): Context;
  close(): Promise<void>;
}

export async function serviceHarness(): Promise<ServiceHarness> {
  const { db, cleanup } = await freshDatabase();
  const logger = createLogger('silent');
  const bus = new EventBus(db, { logger });
  await bus.start();
  const config = loadConfig({}, { externalUrl: 'http://gitlab.example.com', logLevel: 'silent', dataDir: 'memory' });
  const repositories = await RepositoryStorages.open(config);
  const artifacts = await ArtifactStorage.open(config);
  const packages = await PackageStorage.open(config);
  const uploads = await UploadStorage.open(config);
  const app = createApp({ db: db.prisma, readDb: db.readPrisma, config, bus, jobs: new JobQueue(db, { logger }), logger, repositories, artifacts, packages, uploads });
  let tokenId = 1000;
  return {
    app,
    async user(options = {}) {
      const username = unique('svc');
      const row = await UsersService.createSystemUser(db.prisma, {
        username,
        name: username,
        email: `${username}@example.com`,
        admin: options.admin ?? false,
        external: options.external ?? false,
      });
      const viewer: Viewer = { id: row.id, username, admin: row.admin, external: row.external, bot: false, canCreateGroup: row.canCreateGroup, tokenId: tokenId++, tokenExpiresAt: null, scopes: options.scopes ?? ['api'] };
      return { row, viewer, ctx: createContext(app, viewer) };
    },
    anonymous: () => createContext(app, null),
    contextFor: (viewer) => createContext(app, viewer),
    async close() {
      await bus.stop();
      await cleanup();
      await repositories.close();
      await artifacts.close();
      await packages.close();
      await uploads.close();
    },
  };
}
