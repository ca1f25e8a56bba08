/**
 * Repository storage moves over GraphQL: the relay mutations (refusals in the payload's errors), the queries and
 * their global IDs, administrators only, and the state subscription over graphql-ws hearing a move from scheduled
 * to finished.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import { hashedPath } from '../../src/git/storages.js';
import { MOVE_UPDATED, type MoveMessage } from '../../src/modules/repository_storage_moves/service.js';
import { createGroup, createProject, createUser } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const folders = { default: mkdtempSync(join(tmpdir(), 'moves-gql-default-')), other: mkdtempSync(join(tmpdir(), 'moves-gql-other-')) };
afterAll(() => Object.values(folders).forEach((f) => rmSync(f, { recursive: true, force: true })));
const t = suiteServer({
  repositoryStorages: [
    { name: 'default', path: folders.default, weight: 100 },
    { name: 'other', path: folders.other, weight: 0 },
  ],
});

const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
});
function wsClient(token: string): Client {
  const client = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': token }, retryAttempts: 0, lazy: true });
  clients.push(client);
  return client;
}

const MOVE_FIELDS = 'id databaseId state humanStateName sourceStorageName destinationStorageName errorMessage project { id fullPath repositoryStorage repositoryReadOnly } createdAt updatedAt';
const CREATE = `mutation($input: ProjectRepositoryStorageMoveCreateInput!) {
  projectRepositoryStorageMoveCreate(input: $input) { clientMutationId errors projectRepositoryStorageMove { ${MOVE_FIELDS} } }
}`;

describe('GraphQL', () => {
  it('schedules a move, heard from scheduled to finished over graphql-ws', async () => {
    const project = await createProject(t, t.rootToken);
    const updates: any[] = [];
    let wanted: number | null = null;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    let failure: unknown = null;
    wsClient(t.rootToken).subscribe(
      { query: 'subscription { projectRepositoryStorageMoveUpdated { databaseId state project { id } } }' },
      {
        next: (message) => {
          if (message.errors) failure = message.errors;
          const update = (message.data as any)?.projectRepositoryStorageMoveUpdated;
          updates.push(update);
          if (update?.databaseId === wanted && update.state === 'FINISHED') finished();
        },
        error: (error) => (failure = error),
        complete: () => undefined,
      },
    );
    // graphql-ws does not acknowledge a subscription: moves of other projects until the subscriber hears one.
    for (let i = 0; updates.length === 0; i++) {
      if (i === 20) throw new Error(`the subscription heard nothing: ${JSON.stringify(failure)}`);
      const other = await createProject(t, t.rootToken);
      const warmUp = await t.api('POST', `/projects/${other.id}/repository_storage_moves`, { body: { destination_storage_name: 'other' } });
      await ended(warmUp.body.id);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const res = await t.graphql(CREATE, { input: { clientMutationId: 'c1', projectPath: project.path_with_namespace, destinationStorageName: 'other' } });
    expect(res.body.errors).toBeUndefined();
    const payload = res.body.data.projectRepositoryStorageMoveCreate;
    expect(payload.clientMutationId).toBe('c1');
    expect(payload.errors).toEqual([]);
    const move = payload.projectRepositoryStorageMove;
    wanted = move.databaseId;
    expect(move).toMatchObject({
      id: `gid://gitlab/Projects::RepositoryStorageMove/${move.databaseId}`,
      state: 'SCHEDULED',
      humanStateName: 'scheduled',
      sourceStorageName: 'default',
      destinationStorageName: 'other',
      errorMessage: null,
      project: { id: `gid://gitlab/Project/${project.id}`, repositoryStorage: 'default', repositoryReadOnly: true },
    });
    await done;
    const heard = updates.filter((u) => u.databaseId === move.databaseId);
    expect(heard.map((u) => u.state)).toEqual(['SCHEDULED', 'STARTED', 'REPLICATED', 'FINISHED']);
    expect(heard.every((u) => u.project.id === `gid://gitlab/Project/${project.id}`)).toBe(true);
    expect(existsSync(join(folders.other, hashedPath(project.id), 'HEAD'))).toBe(true);

    const read = await t.graphql(`query($id: ProjectsRepositoryStorageMoveID!, $path: ID!) {
      projectRepositoryStorageMove(id: $id) { state project { repositoryStorage repositoryReadOnly } }
      projectRepositoryStorageMoves(first: 1) { count nodes { databaseId } }
      project(fullPath: $path) { repositoryStorageMoves { count nodes { id } } repositoryStorageMove(id: $id) { humanStateName } }
    }`, { id: move.id, path: project.path_with_namespace });
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.projectRepositoryStorageMove).toEqual({ state: 'FINISHED', project: { repositoryStorage: 'other', repositoryReadOnly: false } });
    expect(read.body.data.projectRepositoryStorageMoves.nodes).toEqual([{ databaseId: move.databaseId }]);
    expect(read.body.data.project.repositoryStorageMoves).toEqual({ count: 1, nodes: [{ id: move.id }] });
    expect(read.body.data.project.repositoryStorageMove).toEqual({ humanStateName: 'finished' });
  }, 240_000);

  it('reports refusals in the payload, and is for administrators only', async () => {
    const project = await createProject(t, t.rootToken);
    const refused = await t.graphql(CREATE, { input: { projectPath: String(project.id), destinationStorageName: 'nope' } });
    expect(refused.body.data.projectRepositoryStorageMoveCreate).toEqual({ clientMutationId: null, errors: ['Destination storage name is not included in the list'], projectRepositoryStorageMove: null });

    const group = await createGroup(t, t.rootToken);
    const groupMove = await t.graphql(`mutation($input: GroupRepositoryStorageMoveCreateInput!) {
      groupRepositoryStorageMoveCreate(input: $input) { errors groupRepositoryStorageMove { id state sourceStorageName group { id } } }
    }`, { input: { groupPath: group.full_path, destinationStorageName: 'other' } });
    expect(groupMove.body.data.groupRepositoryStorageMoveCreate).toMatchObject({ errors: [], groupRepositoryStorageMove: { state: 'SCHEDULED', sourceStorageName: 'default', group: { id: `gid://gitlab/Group/${group.id}` } } });
    expect(groupMove.body.data.groupRepositoryStorageMoveCreate.groupRepositoryStorageMove.id).toMatch(/^gid:\/\/gitlab\/Groups::RepositoryStorageMove\/\d+$/);

    const bulk = await t.graphql(`mutation { projectRepositoryStorageMovesSchedule(input: { sourceStorageName: "nope" }) { errors message } }`);
    expect(bulk.body.errors?.[0].message).toBe('sourceStorageName does not have a valid value');

    const user = await createUser(t);
    const denied = await t.graphql(CREATE, { input: { projectPath: String(project.id), destinationStorageName: 'other' } }, user.token);
    expect(denied.body.data.projectRepositoryStorageMoveCreate).toBeNull();
    expect(denied.body.errors?.[0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
    const list = await t.graphql('{ projectRepositoryStorageMoves { count } }', {}, user.token);
    expect(list.body.data.projectRepositoryStorageMoves).toBeNull();
    expect(list.body.errors).toHaveLength(1);
    const subscription = await new Promise<unknown>((resolve) => {
      wsClient(user.token).subscribe({ query: 'subscription { groupRepositoryStorageMoveUpdated { id } }' }, { next: (m) => resolve(m.errors), error: resolve, complete: () => resolve(null) });
    });
    expect(JSON.stringify(subscription)).toMatch(/403 Forbidden|don't have permission/);
    // Nothing was scheduled by them.
    const moves = await t.graphql(`query($path: ID!) { project(fullPath: $path) { repositoryReadOnly repositoryStorageMoves { count } } }`, { path: String(project.id) });
    expect(moves.body.data.project).toEqual({ repositoryReadOnly: false, repositoryStorageMoves: { count: 0 } });
  }, 120_000);
});

/** Resolves once this server's bus has carried the project move `id` to an end state. */
function ended(id: number): Promise<void> {
  return new Promise((resolve) => {
    const stop = t.server.app.bus.subscribe(MOVE_UPDATED, (payload) => {
      const message = payload as MoveMessage;
      if (message.type === 'project' && message.id === id && ['finished', 'failed', 'cleanup_failed'].includes(message.state)) {
        stop();
        resolve();
      }
    });
  });
}
