/**
 * The job keywords that reach beyond the script, on the built-in shell runner and in the runner protocol: ID tokens
 * (signed by the instance's key, verified against the JWKS served over HTTP), the pre_get_sources_script hook, and
 * `secrets:` (failed before running without a provider, handed to the runner with one).
 */
import { createPublicKey, verify } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createProject } from '../support/factories.js';
import { commit, createRunner, eventually, jobLog, jobsOf, projectWithConfig, pushPipeline, requestJob, settledJobs, withShellRunner } from './support.js';

const t = suiteServer({ ciLongPollingMs: 1000 });
withShellRunner(t);

const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString());

/** The parts of each token the job printed (one `NAME=header payload signature` line each, so the log keeps them). */
function printedTokens(log: string): Record<string, string> {
  return Object.fromEntries([...log.matchAll(/^TOKEN (\w+)=(\S+) (\S+) (\S+)$/gm)].map((m) => [m[1], `${m[2]}.${m[3]}.${m[4]}`]));
}

describe('id_tokens', () => {
  it('gives the job each configured token, masked in its log, RS256-signed with the key the JWKS publishes, with GitLab\'s claims', async () => {
    const config = `
variables:
  AUD_HOST: vault.example.com
default:
  id_tokens:
    DEFAULT_TOKEN:
      aud: https://default.example.com
deploy:
  environment:
    name: staging
    deployment_tier: staging
  id_tokens:
    FIRST_TOKEN:
      aud: https://$AUD_HOST
    SECOND_TOKEN:
      aud: [one, "$AUD_HOST"]
  script:
    - echo "whole $FIRST_TOKEN"
    - for name in FIRST_TOKEN SECOND_TOKEN; do eval value=\\$$name; echo "TOKEN $name=$(printf %s "$value" | tr . ' ')"; done
    - if [ -n "$DEFAULT_TOKEN" ]; then echo "default token given"; else echo "no default token"; fi
inherit_default:
  script:
    - echo "TOKEN DEFAULT_TOKEN=$(printf %s "$DEFAULT_TOKEN" | tr . ' ')"
`;
    const started = Math.floor(Date.now() / 1000);
    const { project, pipeline, sha } = await projectWithConfig(t, config);
    const jobs = await settledJobs(t, project.id, pipeline.id);
    expect(jobs.map((j) => [j.name, j.status])).toEqual([
      ['deploy', 'success'],
      ['inherit_default', 'success'],
    ]);
    const deploy = jobs.find((j) => j.name === 'deploy')!;
    const log = await jobLog(t, project.id, deploy.id);
    expect(log).toContain('whole [MASKED]');
    // A job's own id_tokens replace default:'s.
    expect(log).toContain('no default token');
    const tokens = printedTokens(log);
    expect(Object.keys(tokens)).toEqual(['FIRST_TOKEN', 'SECOND_TOKEN']);

    const discovery = (await fetch(`${t.url}/.well-known/openid-configuration`).then((r) => r.json())) as { issuer: string; jwks_uri: string };
    expect(discovery).toMatchObject({ issuer: expect.any(String), jwks_uri: `${discovery.issuer}/oauth/discovery/keys`, id_token_signing_alg_values_supported: ['RS256'] });
    const jwksResponse = await fetch(`${t.url}/oauth/discovery/keys`);
    expect(jwksResponse.headers.get('cache-control')).toBe('max-age=86400, public, must-revalidate, no-transform');
    const jwks = (await jwksResponse.json()) as { keys: { kid: string; kty: string; e: string; n: string; use: string; alg: string }[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256' });
    expect(await fetch(`${t.url}/-/jwks`).then((r) => r.json())).toEqual(jwks);
    const publicKey = createPublicKey({ key: jwks.keys[0], format: 'jwk' });

    const user = (await t.api('GET', '/user')).body;
    const claimsOf = (token: string) => {
      const [header, payload, signature] = token.split('.');
      expect(decode(header)).toEqual({ kid: jwks.keys[0].kid, typ: 'JWT', alg: 'RS256' });
      expect(verify('sha256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'))).toBe(true);
      // A changed claim breaks the signature.
      const forged = Buffer.from(JSON.stringify({ ...decode(payload), ref: 'other' })).toString('base64url');
      expect(verify('sha256', Buffer.from(`${header}.${forged}`), publicKey, Buffer.from(signature, 'base64url'))).toBe(false);
      return decode(payload);
    };
    const first = claimsOf(tokens.FIRST_TOKEN);
    const host = new URL(discovery.issuer).host;
    expect(first).toEqual({
      namespace_id: String(project.namespace.id),
      namespace_path: project.namespace.full_path,
      project_id: String(project.id),
      project_path: project.path_with_namespace,
      user_id: String(user.id),
      user_login: user.username,
      user_email: user.email,
      user_access_level: 'owner',
      pipeline_id: String(pipeline.id),
      pipeline_source: 'push',
      job_id: String(deploy.id),
      ref: 'main',
      ref_type: 'branch',
      ref_path: 'refs/heads/main',
      ref_protected: expect.stringMatching(/^(true|false)$/),
      environment: 'staging',
      environment_protected: 'false',
      deployment_tier: 'staging',
      environment_action: 'start',
      runner_id: expect.any(Number),
      runner_environment: 'self-hosted',
      sha,
      project_visibility: 'private',
      ci_config_ref_uri: `${host}/${project.path_with_namespace}//.gitlab-ci.yml@refs/heads/main`,
      ci_config_sha: sha,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      iat: expect.any(Number),
      nbf: expect.any(Number),
      exp: expect.any(Number),
      iss: discovery.issuer,
      sub: `project_path:${project.path_with_namespace}:ref_type:branch:ref:main`,
      aud: 'https://vault.example.com',
    });
    expect(first.iat).toBeGreaterThanOrEqual(started - 1);
    expect(first.nbf).toBe(first.iat - 5);
    // The job's timeout: the project's hour.
    expect(first.exp).toBe(first.iat + 3600);
    const second = claimsOf(tokens.SECOND_TOKEN);
    expect(second.aud).toEqual(['one', 'vault.example.com']);
    expect(second.jti).not.toBe(first.jti);

    // default:'s token, for a job without its own; no environment claims without an environment.
    const other = jobs.find((j) => j.name === 'inherit_default')!;
    const inherited = claimsOf(printedTokens(await jobLog(t, project.id, other.id)).DEFAULT_TOKEN);
    expect(inherited).toMatchObject({ aud: 'https://default.example.com', job_id: String(other.id) });
    expect(inherited).not.toHaveProperty('environment');

    // The key is the instance's: the same one signs every project's tokens, and stays.
    expect(((await fetch(`${t.url}/oauth/discovery/keys`).then((r) => r.json())) as typeof jwks).keys[0].kid).toBe(jwks.keys[0].kid);
  });
});

describe('hooks: pre_get_sources_script', () => {
  it('runs before the sources are fetched, and a failing hook fails the job before any fetch', async () => {
    const config = `
fine:
  hooks:
    pre_get_sources_script:
      - if [ -e "$CI_PROJECT_DIR/.git" ]; then echo "sources already there"; else echo "hook before sources"; fi
  script:
    - echo "script after sources"
broken:
  hooks:
    pre_get_sources_script: exit 3
  script:
    - echo "never"
`;
    const { project, pipeline } = await projectWithConfig(t, config);
    const jobs = await settledJobs(t, project.id, pipeline.id);
    const fine = jobs.find((j) => j.name === 'fine')!;
    const broken = jobs.find((j) => j.name === 'broken')!;
    expect([fine.status, broken.status, broken.failure_reason]).toEqual(['success', 'failed', 'script_failure']);
    const log = await jobLog(t, project.id, fine.id);
    expect(log).toContain('hook before sources');
    expect(log.indexOf('hook before sources')).toBeLessThan(log.indexOf('Fetching changes'));
    expect(log.indexOf('Fetching changes')).toBeLessThan(log.indexOf('script after sources'));
    const brokenLog = await jobLog(t, project.id, broken.id);
    expect(brokenLog).not.toContain('Fetching changes');
    expect(brokenLog).toContain('ERROR: Job failed: exit code 3');
  });
});

describe('secrets', () => {
  it('fails a job whose secrets have no provider before it runs (secrets_provider_not_found)', async () => {
    const { project, pipeline } = await projectWithConfig(t, 'job:\n  secrets:\n    DB_PASSWORD:\n      vault: production/db/password@ops\n  script: echo never\n');
    const [job] = await settledJobs(t, project.id, pipeline.id);
    expect([job.status, job.failure_reason]).toEqual(['failed', 'secrets_provider_not_found']);
    const rest = (await t.api('GET', `/projects/${project.id}/jobs/${job.id}`)).body;
    expect([rest.started_at, rest.runner]).toEqual([null, null]);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`)).body.status).toBe('failed');
  });

  it('hands the secrets, the hooks and the ID tokens to a runner when a provider is configured; the built-in runner fails what it cannot resolve', async () => {
    const project = await createProject(t, t.rootToken);
    const config = `
variables:
  VAULT_SERVER_URL: https://vault.example.com
  AZURE_KEY_VAULT_SERVER_URL: https://azure.example.com
  AZURE_CLIENT_ID: client
  AZURE_TENANT_ID: tenant
protocol:
  tags: [protocol]
  hooks:
    pre_get_sources_script: [echo hook]
  id_tokens:
    VAULT_ID_TOKEN:
      aud: https://vault.example.com
  secrets:
    DB_PASSWORD:
      vault: production/db/password@ops
      token: $VAULT_ID_TOKEN
  script: echo protocol
shell:
  secrets:
    API_KEY:
      azure_key_vault:
        name: api-key
  script: echo never
`;
    const { token } = await createRunner(t, { runner_type: 'project_type', project_id: project.id, tag_list: ['protocol'], run_untagged: false });
    const sha = await commit(t, project.id, { '.gitlab-ci.yml': config });
    const pipeline = await pushPipeline(t, project.id, sha);
    const payload = await requestJob(t, token);
    expect(payload.job_info.name).toBe('protocol');
    expect(payload.hooks).toEqual([{ name: 'pre_get_sources_script', script: ['echo hook'] }]);
    // EE's secrets_configuration: the Vault server and the JWT to log in with, from the job's variables and tokens.
    expect(payload.secrets).toEqual({
      DB_PASSWORD: {
        vault: {
          engine: { name: 'kv-v2', path: 'ops' },
          path: 'production/db',
          field: 'password',
          server: { url: 'https://vault.example.com', namespace: null, auth: { name: 'jwt', path: 'jwt', data: { jwt: '$VAULT_ID_TOKEN' } } },
        },
        token: '$VAULT_ID_TOKEN',
      },
    });
    const idToken = payload.variables.find((v: { key: string }) => v.key === 'VAULT_ID_TOKEN');
    expect(idToken).toMatchObject({ public: false, masked: true });
    expect(decode(idToken.value.split('.')[1])).toMatchObject({ aud: 'https://vault.example.com', job_id: String(payload.id) });

    // The protocol job stays with the runner that took it; the built-in runner took the other.
    const shell = await eventually(async () => {
      const job = (await jobsOf(t, project.id, pipeline.id)).find((j) => j.name === 'shell');
      return job?.status === 'failed' && job;
    }, 60_000);
    expect([shell.status, shell.failure_reason]).toEqual(['failed', 'runner_system_failure']);
    const log = await jobLog(t, project.id, shell.id);
    expect(log).toContain('ERROR: Resolving secrets: secret "API_KEY": provider "azure_key_vault" is not supported by this runner');
    expect(log).not.toContain('never');
  });

  it('resolves Vault KV secrets on the built-in runner: logs in with the ID token, reads the field, hands it over as a masked (file) variable', async () => {
    const requests: { method: string; url: string; headers: Record<string, unknown>; body: string }[] = [];
    let verified = false;
    const vault = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', async () => {
        requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        const send = (status: number, json: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(json));
        if (req.method === 'POST' && req.url === '/v1/auth/jwt/login') {
          const { jwt, role } = JSON.parse(body) as { jwt: string; role: string };
          // As Vault's jwt auth method does: the token verified against the issuer's JWKS, its audience bound.
          const jwks = (await fetch(`${t.url}/oauth/discovery/keys`).then((r) => r.json())) as { keys: object[] };
          const [header, payload, signature] = jwt.split('.');
          verified = verify('sha256', Buffer.from(`${header}.${payload}`), createPublicKey({ key: jwks.keys[0] as never, format: 'jwk' }), Buffer.from(signature, 'base64url'));
          if (!verified || role !== 'ci' || decode(payload).aud !== 'vault-aud') return send(400, { errors: ['permission denied'] });
          return send(200, { auth: { client_token: 'hvs.client' } });
        }
        if (req.headers['x-vault-token'] !== 'hvs.client') return send(403, { errors: ['permission denied'] });
        if (req.url === '/v1/ops/data/production/db') return send(200, { data: { data: { password: 's3cr3t-Value-42' }, metadata: { version: 1 } } });
        if (req.url === '/v1/legacy/api') return send(200, { data: { key: 'api-Key-0987' } });
        return send(404, { errors: [] });
      });
    });
    await new Promise<void>((resolve) => vault.listen(0, '127.0.0.1', resolve));
    try {
      const port = (vault.address() as AddressInfo).port;
      const config = `
variables:
  VAULT_SERVER_URL: http://127.0.0.1:${port}
  VAULT_AUTH_ROLE: ci
job:
  id_tokens:
    VAULT_ID_TOKEN:
      aud: vault-aud
  secrets:
    DB_PASSWORD:
      vault: production/db/password@ops
    API_KEY:
      vault:
        engine: {name: kv-v1, path: legacy}
        path: api
        field: key
      file: false
    MISSING:
      vault: production/db/nothing@ops
  script: echo never
ok:
  id_tokens:
    VAULT_ID_TOKEN:
      aud: vault-aud
  secrets:
    DB_PASSWORD:
      vault: production/db/password@ops
    API_KEY:
      vault:
        engine: {name: kv-v1, path: legacy}
        path: api
        field: key
      file: false
  script:
    - if [ -f "$DB_PASSWORD" ] && [ "$(cat "$DB_PASSWORD")" = "s3cr3t-Value-42" ]; then echo "file secret ok"; fi
    - cat "$DB_PASSWORD"; echo
    - echo "plain=$API_KEY"
`;
      const { project, pipeline } = await projectWithConfig(t, config);
      const jobs = await settledJobs(t, project.id, pipeline.id);
      const ok = jobs.find((j) => j.name === 'ok')!;
      const failed = jobs.find((j) => j.name === 'job')!;
      expect([ok.status, failed.status, failed.failure_reason]).toEqual(['success', 'failed', 'runner_system_failure']);
      expect(verified).toBe(true);
      const log = await jobLog(t, project.id, ok.id);
      expect(log).toContain('Resolving secret "DB_PASSWORD"...');
      expect(log).toContain('Using "vault" secret resolver...');
      expect(log).toContain('file secret ok');
      expect(log).toContain('plain=[MASKED]');
      expect(log).not.toContain('s3cr3t-Value-42');
      expect(log).not.toContain('api-Key-0987');
      expect(await jobLog(t, project.id, failed.id)).toContain('ERROR: Resolving secrets: secret "MISSING": secret field "nothing" not found');
      const reads = requests.filter((r) => r.method === 'GET').map((r) => r.url);
      expect(reads).toContain('/v1/ops/data/production/db');
      expect(reads).toContain('/v1/legacy/api');
    } finally {
      await new Promise((resolve) => vault.close(resolve));
    }
  });
});
