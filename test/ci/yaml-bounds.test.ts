/**
 * YAML bombs (issue 23) through every door to the one YAML loader: CI Lint, GraphQL `ciConfig`, and a commit whose
 * push creates a pipeline. Each answers GitLab's "The parsed YAML is too big", and while four clients send bombs,
 * other requests keep being answered (before, one deep-anchor lint held every request for over a minute).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../support/factories.js';
import { suiteServer } from '../support/server.js';
import { eventually } from '../support/wait.js';
import { BOMBS } from './bombs.js';

const t = suiteServer();
const TOO_BIG = 'The parsed YAML is too big';
const NAMES = Object.keys(BOMBS);

let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  project = await createProject(t, t.rootToken);
});

/** Commits `.gitlab-ci.yml` on main, or on a new branch from main; resolves to the pipeline its push created. */
async function commitConfig(content: string, branch: string) {
  const fromMain = branch === 'main' ? { action: 'create' } : { action: 'update', start_branch: 'main' };
  const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    body: { branch, commit_message: 'CI', actions: [{ action: fromMain.action, file_path: '.gitlab-ci.yml', content }], ...(fromMain.start_branch ? { start_branch: 'main' } : {}) },
  });
  expect(res.status).toBe(201);
  const sha = res.body.id as string;
  const listed = await eventually(async () => (await t.api('GET', `/projects/${project.id}/pipelines?sha=${sha}`)).body[0]);
  return (await t.api('GET', `/projects/${project.id}/pipelines/${listed.id}`)).body;
}

const lint = (content: string) => t.api('POST', `/projects/${project.id}/ci/lint`, { body: { content } });

describe('YAML bombs', () => {
  beforeAll(async () => {
    await commitConfig('job:\n  script: x\n', 'main');
  });

  it.each(NAMES)('CI Lint answers the %s bomb: The parsed YAML is too big', async (name) => {
    const res = await lint(BOMBS[name]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: false, errors: [TOO_BIG], merged_yaml: null });
  });

  it.each(NAMES)('GraphQL ciConfig answers the %s bomb INVALID: The parsed YAML is too big', async (name) => {
    const res = await t.graphql('query($path: ID!, $content: String) { ciConfig(projectPath: $path, content: $content) { status errors mergedYaml } }', {
      path: project.path_with_namespace,
      content: BOMBS[name],
    });
    expect(res.body.data.ciConfig).toEqual({ status: 'INVALID', errors: [TOO_BIG], mergedYaml: null });
  });

  it.each(NAMES)('a commit of the %s bomb creates a failed pipeline whose yaml_errors say so', async (name) => {
    const pipeline = await commitConfig(BOMBS[name], `bomb-${name}`);
    expect(pipeline).toMatchObject({ status: 'failed', yaml_errors: TOO_BIG });
  });

  it('keeps answering other requests while four clients commit and lint bombs', async () => {
    let sending = true;
    const latencies: number[] = [];
    const watch = (async () => {
      while (sending) {
        const started = performance.now();
        const res = await t.api('GET', '/version');
        latencies.push(performance.now() - started);
        expect(res.status).toBe(200);
      }
    })();
    const clients = Array.from({ length: 4 }, async (_, client) => {
      const name = NAMES[client % NAMES.length];
      expect((await lint(BOMBS[name])).body.errors).toEqual([TOO_BIG]);
      expect(await commitConfig(BOMBS[name], `load-${client}`)).toMatchObject({ status: 'failed', yaml_errors: TOO_BIG });
    });
    try {
      await Promise.all(clients);
    } finally {
      sending = false;
      await watch;
    }
    expect(latencies.length).toBeGreaterThan(0);
    // Loose on purpose (a shared two-core machine): the stall this guards against lasted tens of seconds.
    expect(Math.max(...latencies)).toBeLessThan(2_000);
  }, 60_000);
});
