/**
 * A closed server lets go of what it served: nothing left running (a timer, a listener) still reaches its app, schema
 * and database. Tests start a server per file in long-lived workers, and a server kept alive after its close cost
 * some 33 MB each (http's connections-checking interval outlived the drain's plain net close).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Starts a server, uses it over HTTP and GraphQL, closes it, and keeps only a weak reference to its app. */
async function serveAndClose(): Promise<WeakRef<object>> {
  const t = await startTestServer();
  expect((await t.api('GET', '/projects', { token: t.rootToken })).status).toBe(200);
  expect((await t.graphql('{ currentUser { username } }', {}, t.rootToken)).body.data).toEqual({ currentUser: { username: 'root' } });
  const app = new WeakRef(t.server.app);
  await t.close();
  return app;
}

it('is collected once closed', async () => {
  const app = await serveAndClose();
  // Whatever the close set going (a linger, a timer of the drain) ends within a few turns.
  for (let i = 0; i < 20 && app.deref(); i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  expect(app.deref()).toBeUndefined();
});
