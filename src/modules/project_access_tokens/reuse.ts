/**
 * GitLab's automatic reuse detection (Gitlab::Auth::AuthFinders#revoke_token_family): when a revoked token is
 * presented to a rotation endpoint, the token has leaked (its rotation already happened), so every token rotated
 * from it is revoked too, on every replica, before authentication refuses the request with its 401. Only the
 * rotation endpoints do this (GitLab issue 418769); a revoked token anywhere else just gets the 401.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Credentials } from '../../auth/credentials.js';
import { createContext, type App } from '../../context.js';

/** `POST …/access_tokens/:token_id/rotate` and `…/access_tokens/self/rotate`, below `/api/v4`. */
const ROTATION = /^\/projects\/[^/]+\/access_tokens\/(?:\d+|self)\/rotate\/?$/;

export function tokenReuseDetection(app: App) {
  return (req: Request, res: Response, next: NextFunction) => {
    const credentials = res.locals.credentials as Credentials | null | undefined;
    if (req.method !== 'POST' || credentials?.kind !== 'token' || !ROTATION.test(req.path)) return next();
    const context = createContext(app, null, { lane: 'write' });
    context.services.project_access_tokens
      .revokeFamilyOfRevoked(credentials.digest)
      // The cache of this replica forgets the family before the caller can present one of its tokens again.
      .then(() => context.settle())
      .then(() => next(), next);
  };
}
