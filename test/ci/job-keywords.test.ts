/**
 * The job keywords that reach beyond the job's script (id_tokens, hooks, secrets, manual_confirmation, pages,
 * publish, identity, dast_configuration): the values the engine keeps, and GitLab's errors for each mistake.
 */
import { describe, expect, it } from 'vitest';
import { errors, itReports, jobs, plan } from './support.js';

describe('id_tokens', () => {
  it('keeps each token with its aud, a string or strings, and takes them from default:', async () => {
    const j = await jobs(
      'default:\n  id_tokens:\n    DEFAULT_TOKEN:\n      aud: https://default\n' +
        'a:\n  script: x\n  id_tokens:\n    FIRST:\n      aud: https://first/$CI_PROJECT_ID\n    SECOND:\n      aud: [one, two]\n' +
        'b:\n  script: y\n' +
        'c:\n  script: z\n  inherit:\n    default: false\n',
    );
    expect(j.a.idTokens).toEqual({ FIRST: { aud: 'https://first/$CI_PROJECT_ID' }, SECOND: { aud: ['one', 'two'] } });
    expect(j.b.idTokens).toEqual({ DEFAULT_TOKEN: { aud: 'https://default' } });
    expect(j.c.idTokens).toBeNull();
  });

  it('reports both a missing aud and an unknown key, as GitLab validates both', async () => {
    expect(await errors('a:\n  script: x\n  id_tokens:\n    T:\n      foo: bar\n')).toEqual(['jobs:a:id_tokens:t config missing required keys: aud', 'jobs:a:id_tokens:t config contains unknown keys: foo']);
  });

  itReports('validates id_tokens as GitLab does', [
    ['a:\n  script: x\n  id_tokens: [x]\n', 'jobs:a:id_tokens config should be a hash'],
    ['a:\n  script: x\n  id_tokens:\n    T: {}\n', 'jobs:a:id_tokens:t config missing required keys: aud'],
    ['a:\n  script: x\n  id_tokens:\n    T:\n', 'jobs:a:id_tokens:t config missing required keys: aud'],
    ['a:\n  script: x\n  id_tokens:\n    T:\n      aud: x\n      sub: y\n', 'jobs:a:id_tokens:t config contains unknown keys: sub'],
    ['a:\n  script: x\n  id_tokens:\n    T:\n      aud: {a: 1}\n', 'jobs:a:id_tokens:t aud should be an array of strings or a string'],
    ['default:\n  id_tokens:\n    T:\n      aud: 1\na:\n  script: x\n', 'default:id_tokens:t aud should be an array of strings or a string'],
  ]);
});

describe('hooks', () => {
  it('keeps pre_get_sources_script (flattened) and takes it from default:', async () => {
    const j = await jobs('default:\n  hooks:\n    pre_get_sources_script: [d]\na:\n  script: x\n  hooks:\n    pre_get_sources_script:\n      - one\n      - [two]\nb:\n  script: y\n');
    expect(j.a.hooks).toEqual({ pre_get_sources_script: ['one', 'two'] });
    expect(j.b.hooks).toEqual({ pre_get_sources_script: ['d'] });
  });

  itReports('validates hooks as GitLab does', [
    ['a:\n  script: x\n  hooks: echo\n', 'jobs:a:hooks config should be a hash'],
    ['a:\n  script: x\n  hooks:\n    post_script: [x]\n', 'jobs:a:hooks config contains unknown keys: post_script'],
    ['a:\n  script: x\n  hooks:\n    pre_get_sources_script: {a: 1}\n', 'jobs:a:hooks:pre_get_sources_script config should be a string or a nested array of strings up to 10 levels deep'],
  ]);
});

describe('secrets', () => {
  it("keeps each secret's provider, reading vault's short form as GitLab does", async () => {
    const j = await jobs(
      'a:\n  script: x\n  secrets:\n    DB:\n      vault: production/db/password@ops\n      file: false\n' +
        '    API:\n      vault:\n        engine: {name: kv-v1, path: secrets}\n        path: api\n        field: key\n' +
        '    GCP:\n      gcp_secret_manager: {name: my-secret}\n      token: $GCP_TOKEN\n',
    );
    expect(j.a.secrets).toEqual({
      DB: { vault: { engine: { name: 'kv-v2', path: 'ops' }, path: 'production/db', field: 'password' }, file: false },
      API: { vault: { engine: { name: 'kv-v1', path: 'secrets' }, path: 'api', field: 'key' } },
      GCP: { gcp_secret_manager: { name: 'my-secret' }, token: '$GCP_TOKEN' },
    });
    expect((await jobs('a:\n  script: x\n  secrets:\n    S:\n      vault: db/password\n')).a.secrets).toEqual({ S: { vault: { engine: { name: 'kv-v2', path: 'kv-v2' }, path: 'db', field: 'password' } } });
  });

  itReports('validates secrets as GitLab does', [
    ['a:\n  script: x\n  secrets: [x]\n', 'jobs:a:secrets config should be a hash'],
    ['a:\n  script: x\n  secrets:\n    S:\n      file: true\n', 'jobs:a:secrets:s config must use exactly one of these keys: vault, azure_key_vault, gcp_secret_manager, akeyless, gitlab_secrets_manager, aws_secrets_manager'],
    ['a:\n  script: x\n  secrets:\n    S:\n      vault: a/b\n      akeyless: {name: x}\n', 'jobs:a:secrets:s config must use exactly one of these keys: vault, azure_key_vault, gcp_secret_manager, akeyless, gitlab_secrets_manager, aws_secrets_manager'],
    ['a:\n  script: x\n  secrets:\n    S:\n      gcp_secret_manager: {name: x}\n', 'jobs:a:secrets:s token is required with gcp secrets manager'],
    ['a:\n  script: x\n  secrets:\n    S:\n      vault: 5\n', 'jobs:a:secrets:s:vault should be a hash or a string'],
    ['a:\n  script: x\n  secrets:\n    S:\n      vault:\n        path: p\n        field: f\n', "jobs:a:secrets:s:vault engine can't be blank"],
    ['a:\n  script: x\n  secrets:\n    S:\n      vault: a/b\n      color: red\n', 'jobs:a:secrets:s config contains unknown keys: color'],
  ]);
});

describe('manual_confirmation, pages, publish, identity, dast_configuration', () => {
  it('keeps manual_confirmation, a string', async () => {
    expect((await jobs('a:\n  script: x\n  when: manual\n  manual_confirmation: Deploy to production?\n')).a.manualConfirmation).toBe('Deploy to production?');
    expect(await errors('a:\n  script: x\n  when: manual\n  manual_confirmation: [x]\n')).toEqual(['jobs:a manual confirmation should be a string']);
  });

  it("marks Pages jobs (pages: set, or a job named pages) and adds their folder to the job's artifacts", async () => {
    const j = await jobs(
      'pages:\n  script: x\n' +
        'site:\n  script: x\n  pages:\n    publish: dist\n    path_prefix: $CI_COMMIT_BRANCH\n  artifacts:\n    paths: [report]\n' +
        'other:\n  script: x\n  pages: true\n  publish: out\n',
    );
    expect([j.pages.pages, j.pages.artifacts?.paths]).toEqual([true, ['public']]);
    expect([j.site.pages, j.site.artifacts?.paths]).toEqual([{ publish: 'dist', path_prefix: '$CI_COMMIT_BRANCH' }, ['report', 'dist']]);
    expect([j.other.pages, j.other.publish, j.other.artifacts?.paths]).toEqual([true, 'out', ['out']]);
    const off = await jobs('pages:\n  script: x\n  pages: false\n');
    expect([off.pages.pages, off.pages.artifacts]).toEqual([null, null]);
  });

  it('says in the warnings what this server cannot do for Pages, identity and DAST', async () => {
    const result = await plan('pages:\n  script: x\ngc:\n  script: x\n  identity: google_cloud\ndast:\n  script: x\n  dast_configuration:\n    site_profile: site\n');
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([
      'jobs:pages pages: this server does not serve GitLab Pages, the job runs and keeps its artifacts',
      'jobs:gc identity: Google Cloud workload identity is not available on this server, the job runs without it',
      'jobs:dast dast_configuration: DAST site and scanner profiles are not available on this server, the job runs without them',
    ]);
  });

  itReports('validates pages, publish, identity and dast_configuration as GitLab does', [
    ['a:\n  script: x\n  publish: dist\n', 'jobs:a publish can only be used within a `pages` job'],
    ['pages:\n  script: x\n  pages: false\n  publish: dist\n', 'jobs:pages publish can only be used within a `pages` job'],
    ['pages:\n  script: x\n  publish: [dist]\n', 'jobs:pages:publish config should be a string'],
    ['a:\n  script: x\n  pages: yes please\n', 'jobs:a:pages config should be a hash or a boolean value'],
    ['a:\n  script: x\n  pages:\n    expire_in: soon\n', 'jobs:a:pages expire in should be a duration'],
    ['a:\n  script: x\n  pages:\n    host: x\n', 'jobs:a:pages config contains unknown keys: host'],
    ['a:\n  script: x\n  identity: aws\n', 'jobs:a:identity config should be one of: google_cloud'],
    ['a:\n  script: x\n  dast_configuration: site\n', 'jobs:a:dast_configuration config should be a hash'],
    ['a:\n  script: x\n  dast_configuration:\n    site_profile: 1\n', 'jobs:a:dast_configuration site profile should be a string'],
  ]);
});
