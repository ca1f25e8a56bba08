/** Owns what the server says about itself (`/version`, `/metadata`) and the heartbeat subscription. */
import { setTimeout as sleep } from 'node:timers/promises';
import { invalidArgument } from '../../errors.js';
import type { ServiceBase } from '../module.js';

export const API_VERSION = '18.6.0';
const REVISION = 'gitlab-compatible';

export interface Metadata {
  version: string;
  revision: string;
  kas: { enabled: boolean; externalUrl: string | null; externalK8sProxyUrl: string | null; version: string | null };
  enterprise: boolean;
}

export class MetadataService {
  constructor(private readonly base: ServiceBase) {}

  /** The version this server is compatible with; signed-in callers only, as GitLab's `/version`. */
  get(): Metadata {
    this.base.access.requireViewer();
    // No agent server for Kubernetes runs beside this one: GitLab's answer when KAS is off.
    return { version: API_VERSION, revision: REVISION, kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null }, enterprise: false };
  }

  /** A beat every `intervalSeconds` (1 to 60). */
  async *heartbeat(intervalSeconds: number): AsyncGenerator<{ heartbeat: Date }> {
    if (intervalSeconds < 1 || intervalSeconds > 60) throw invalidArgument('intervalSeconds');
    for (;;) {
      await sleep(intervalSeconds * 1000);
      yield { heartbeat: new Date() };
    }
  }
}
