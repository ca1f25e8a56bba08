/**
 * The job keywords that reach beyond the job's own script (GitLab's IdToken, Hooks, Secret, Pages, Publish, Identity
 * and DastConfiguration entries), each validated with GitLab's errors and returned as the value GitLab keeps in the
 * job's options, or null after adding an error.
 */
import { parseDuration } from './durations.js';
import { readCommands } from './entries.js';
import { Problems, unknownKeys } from './problems.js';
import type { ConfigMap, Value } from './types.js';
import { isBlank, isBoolean, isMap, isString, isStringArray, toPlain } from './values.js';

/** `id_tokens:` as GitLab keeps it: each token's name and its `aud` (a string or strings, variables not yet expanded). */
export type PlannedIdTokens = Record<string, { aud: string | string[] }>;

/** `hooks:` as GitLab keeps it. */
export interface PlannedHooks {
  pre_get_sources_script?: string[];
}

/** `secrets:` as GitLab keeps it: each variable's provider settings (vault normalised to engine/path/field). */
export type PlannedSecrets = Record<string, Record<string, unknown>>;

/** `pages:` as written: a boolean or `{ path_prefix, expire_in, publish }`. */
export type PlannedPages = boolean | { path_prefix?: string; expire_in?: string; publish?: string };

/** GitLab's ComposableHash: a hash whose every entry is validated by `entry` (a nil entry counts as `{}`). */
function composable(value: Value, location: string, p: Problems, entry: (config: Value, location: string) => void): ConfigMap | null {
  if (!isMap(value)) {
    p.add(location, 'config should be a hash');
    return null;
  }
  for (const [name, config] of value) entry(config === null ? new Map() : config, `${location}:${name}`);
  return value;
}

/** GitLab's IdToken entries: `{ NAME: { aud: string | [strings] } }`, `aud` required and the only key. */
export function readIdTokens(value: Value, location: string, p: Problems): PlannedIdTokens | null {
  const ok = p.clean(() =>
    composable(value, location, p, (config, at) => {
      if (!isMap(config)) {
        p.add(at, 'config should be a hash');
        return;
      }
      if (!config.has('aud')) p.add(at, 'config missing required keys: aud');
      unknownKeys(p, at, config.keys(), ['aud']);
      const aud = config.get('aud') ?? null;
      if (aud !== null && !isString(aud) && !isStringArray(aud)) p.add(at, 'aud should be an array of strings or a string');
    }),
  );
  if (!ok || !isMap(value)) return null;
  const tokens: PlannedIdTokens = {};
  for (const [name, config] of value) tokens[name] = { aud: (config as ConfigMap).get('aud') as string | string[] };
  return tokens;
}

/** GitLab's Hooks entry: a hash of `pre_get_sources_script` commands. */
export function readHooks(value: Value, location: string, p: Problems): PlannedHooks | null {
  if (!isMap(value)) {
    p.add(location, 'config should be a hash');
    return null;
  }
  const ok = p.clean(() => unknownKeys(p, location, value.keys(), ['pre_get_sources_script']));
  const script = value.get('pre_get_sources_script');
  if (script === undefined || script === null) return ok ? {} : null;
  const commands = readCommands(script, `${location}:pre_get_sources_script`, p);
  return ok && commands ? { pre_get_sources_script: commands } : null;
}

const SECRET_KEYS = ['vault', 'file', 'azure_key_vault', 'gcp_secret_manager', 'akeyless', 'gitlab_secrets_manager', 'token', 'aws_secrets_manager'];
export const SECRET_PROVIDERS = ['vault', 'azure_key_vault', 'gcp_secret_manager', 'akeyless', 'gitlab_secrets_manager', 'aws_secrets_manager'] as const;

/** GitLab's Vault::Secret: `path/to/secret/field@engine-path` (engine kv-v2), or `{ engine: {name, path}, path, field }`. */
function readVaultSecret(value: Value, location: string, p: Problems): Record<string, unknown> | null {
  if (isString(value)) {
    if (value === '') {
      p.add(location, "config can't be blank");
      return null;
    }
    const at = value.lastIndexOf('@');
    const [secret, engine] = at < 1 ? [value, 'kv-v2'] : [value.slice(0, at), value.slice(at + 1)];
    const slash = secret.lastIndexOf('/');
    return { engine: { name: 'kv-v2', path: engine }, path: slash < 0 ? '' : secret.slice(0, slash), field: secret.slice(slash + 1) };
  }
  if (!isMap(value)) {
    p.add(location, 'should be a hash or a string');
    return null;
  }
  const ok = p.clean(() => {
    unknownKeys(p, location, value.keys(), ['engine', 'path', 'field']);
    for (const key of ['path', 'field']) {
      const item = value.get(key) ?? null;
      if (isBlank(item)) p.add(location, `${key} can't be blank`);
      else if (!isString(item)) p.add(location, `${key} should be a string`);
    }
    const engine = value.get('engine') ?? null;
    if (isBlank(engine)) p.add(location, "engine can't be blank");
    else if (!isMap(engine)) p.add(location, 'engine should be a hash');
    else {
      unknownKeys(p, `${location}:engine`, engine.keys(), ['name', 'path']);
      for (const key of ['name', 'path']) {
        const item = engine.get(key) ?? null;
        if (isBlank(item)) p.add(`${location}:engine`, `${key} can't be blank`);
        else if (!isString(item)) p.add(`${location}:engine`, `${key} should be a string`);
      }
    }
  });
  return ok ? (toPlain(value) as Record<string, unknown>) : null;
}

/**
 * GitLab's Secret entries: each variable names exactly one provider (`vault`'s settings validated as GitLab does;
 * the other providers' settings must be hashes), with `file:` (boolean) and `token:` (a string, required with
 * gcp_secret_manager).
 */
export function readSecrets(value: Value, location: string, p: Problems): PlannedSecrets | null {
  const secrets: PlannedSecrets = {};
  const ok = p.clean(() =>
    composable(value, location, p, (config, at) => {
      if (!isMap(config)) {
        p.add(at, 'config should be a hash');
        return;
      }
      unknownKeys(p, at, config.keys(), SECRET_KEYS);
      const providers = SECRET_PROVIDERS.filter((key) => config.has(key));
      if (providers.length !== 1) p.add(at, `config must use exactly one of these keys: ${SECRET_PROVIDERS.join(', ')}`);
      const token = config.get('token') ?? null;
      if (token !== null && !isString(token)) p.add(at, 'token should be a string');
      if (config.has('gcp_secret_manager') && isBlank(token)) p.add(at, 'token is required with gcp secrets manager');
      const file = config.get('file') ?? null;
      if (file !== null && !isBoolean(file)) p.add(`${at}:file`, 'config should be a boolean value');
      const out: Record<string, unknown> = {};
      for (const provider of providers) {
        const settings = config.get(provider) ?? null;
        if (provider === 'vault') out.vault = readVaultSecret(settings, `${at}:vault`, p);
        else if (!isMap(settings)) p.add(`${at}:${provider}`, 'config should be a hash');
        else out[provider] = toPlain(settings);
      }
      if (file !== null) out.file = file;
      if (token !== null) out.token = token;
      secrets[at.slice(location.length + 1)] = out;
    }),
  );
  return ok ? secrets : null;
}

/** GitLab's Pages entry: a boolean, or a hash of `path_prefix`, `expire_in` and `publish`. */
export function readPages(value: Value, location: string, p: Problems): PlannedPages | null {
  if (isBoolean(value)) return value;
  if (!isMap(value)) {
    p.add(location, 'config should be a hash or a boolean value');
    return null;
  }
  const ok = p.clean(() => {
    unknownKeys(p, location, value.keys(), ['path_prefix', 'expire_in', 'publish']);
    for (const key of ['path_prefix', 'publish']) {
      const item = value.get(key) ?? null;
      if (item !== null && !isString(item)) p.add(location, `${key.replace(/_/g, ' ')} should be a string`);
    }
    const expireIn = value.get('expire_in') ?? null;
    if (expireIn !== null && expireIn !== 'never' && parseDuration(expireIn) === null) p.add(location, 'expire in should be a duration');
  });
  return ok ? (toPlain(value) as PlannedPages) : null;
}

/** GitLab's Publish entry: a string. */
export function readPublish(value: Value, location: string, p: Problems): string | null {
  if (isString(value)) return value;
  p.add(location, 'config should be a string');
  return null;
}

/** GitLab's Identity entry: `google_cloud`. */
export function readIdentity(value: Value, location: string, p: Problems): string | null {
  if (isString(value) && value === 'google_cloud') return value;
  if (!isString(value)) p.add(location, 'config should be a string');
  p.add(location, 'config should be one of: google_cloud');
  return null;
}

/** GitLab's DastConfiguration entry: `{ site_profile, scanner_profile }`, strings. */
export function readDastConfiguration(value: Value, location: string, p: Problems): { site_profile?: string; scanner_profile?: string } | null {
  if (!isMap(value)) {
    p.add(location, 'config should be a hash');
    return null;
  }
  const ok = p.clean(() => {
    unknownKeys(p, location, value.keys(), ['site_profile', 'scanner_profile']);
    for (const key of ['site_profile', 'scanner_profile']) {
      const item = value.get(key) ?? null;
      if (item !== null && !isString(item)) p.add(location, `${key.replace(/_/g, ' ')} should be a string`);
    }
  });
  return ok ? (toPlain(value) as { site_profile?: string; scanner_profile?: string }) : null;
}
