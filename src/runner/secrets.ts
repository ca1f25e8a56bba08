/**
 * gitlab-runner's Vault secret resolver: log in with the job's JWT (the `jwt` auth method at the path and role the
 * server named), then read the secret's field from its KV engine (`kv-v2`: `<engine>/data/<path>`, the value under
 * `data.data`; `kv-v1`: `<engine>/<path>`, under `data`). Other providers are not supported by this runner.
 */

export interface VaultSecret {
  engine?: { name?: string; path?: string };
  path?: string;
  field?: string;
  server?: { url?: string | null; namespace?: string | null; auth?: { name?: string; path?: string | null; data?: { jwt?: string; role?: string } } };
}

/** Vault's answer as an error message: its `errors`, else the status. */
async function vaultError(response: Response): Promise<string> {
  const body = (await response.json().catch(() => null)) as { errors?: string[] } | null;
  return `api error: status code ${response.status}${body?.errors?.length ? `: ${body.errors.join(', ')}` : ''}`;
}

/** The secret's value, or throws an Error saying why it could not be read. `expand` gives the job's variables' values. */
export async function resolveVaultSecret(secret: VaultSecret, expand: (text: string) => string): Promise<string> {
  const server = secret.server;
  if (!server?.url) throw new Error('vault server URL is not set (VAULT_SERVER_URL)');
  const base = server.url.replace(/\/+$/, '');
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...(server.namespace ? { 'X-Vault-Namespace': server.namespace } : {}) };
  const auth = server.auth ?? {};
  if (auth.name !== 'jwt') throw new Error(`authenticating Vault client: unsupported authentication method "${auth.name ?? ''}"`);
  const login = await fetch(`${base}/v1/auth/${auth.path || 'jwt'}/login`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jwt: expand(auth.data?.jwt ?? ''), ...(auth.data?.role ? { role: auth.data.role } : {}) }),
  });
  if (!login.ok) throw new Error(`authenticating Vault client: ${await vaultError(login)}`);
  const token = ((await login.json()) as { auth?: { client_token?: string } }).auth?.client_token;
  if (!token) throw new Error('authenticating Vault client: no client token');
  const engine = secret.engine ?? {};
  const kind = engine.name ?? 'kv-v2';
  if (kind !== 'kv-v2' && kind !== 'kv-v1') throw new Error(`initializing Vault service: unsupported secret engine "${kind}"`);
  const mount = (engine.path ?? kind).replace(/^\/+|\/+$/g, '');
  const path = (secret.path ?? '').replace(/^\/+/, '');
  const read = await fetch(`${base}/v1/${mount}/${kind === 'kv-v2' ? 'data/' : ''}${path}`, { headers: { ...headers, 'X-Vault-Token': token } });
  if (!read.ok) throw new Error(`reading secret: ${await vaultError(read)}`);
  const body = (await read.json()) as { data?: Record<string, unknown> & { data?: Record<string, unknown> } };
  const data = kind === 'kv-v2' ? body.data?.data : body.data;
  const value = data?.[secret.field ?? ''];
  if (value === undefined || value === null) throw new Error(`secret field "${secret.field ?? ''}" not found`);
  return typeof value === 'string' ? value : JSON.stringify(value);
}
