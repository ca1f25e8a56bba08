/**
 * GitLab's UploadsController for avatars: `GET /uploads/-/system/{user,project,group}/avatar/:id/:filename` sends
 * the model's current avatar file, with its type from the extension, inline. User avatars are public; a project's
 * or group's only to those who may read it (the request's token, when it has one, says who asks), everyone else
 * getting the same 404 as for a file that does not exist. HEAD answers the same headers, without the bytes.
 */
import { Router, type Request, type Response } from 'express';
import { resolveViewer, type Credentials, type CredentialsAuthenticator } from '../auth/credentials.js';
import type { Viewer } from '../auth/viewer.js';
import { createContext, type App } from '../context.js';
import { fileContentType, contentDisposition } from '../uploads/avatars.js';
import type { AvatarModel } from '../uploads/storage.js';

/** GitLab's cache settings: user avatars are public for 5 minutes, the others private and revalidated. */
const CACHE_CONTROL: Record<AvatarModel, string> = {
  user: 'max-age=300, public',
  project: 'max-age=300, private, must-revalidate',
  group: 'max-age=300, private, must-revalidate',
};

function isModel(value: string): value is AvatarModel {
  return value === 'user' || value === 'project' || value === 'group';
}

/** The avatar file name the model has now, when the viewer may see the model; null otherwise. */
async function currentAvatar(app: App, viewer: Viewer | null, model: AvatarModel, id: number): Promise<string | null> {
  const services = createContext(app, viewer, { lane: 'read' }).services;
  const row = model === 'user' ? await services.users.find({ id }) : model === 'project' ? await services.projects.find({ id }) : await services.groups.find({ id });
  return row?.avatar ?? null;
}

export function avatarUploads(app: App, authenticate: CredentialsAuthenticator): Router {
  const router = Router();
  router.get('/uploads/-/system/:model/avatar/:id/:filename', async (req: Request, res: Response, next) => {
    const { model, id, filename } = req.params as Record<string, string>;
    // Whatever is not a readable avatar goes on to the catch-all 404, as unknown paths do.
    if (!isModel(model) || !/^\d{1,10}$/.test(id) || Number(id) > 2147483647) return next();
    try {
      // A token that does not authenticate reads what anonymous callers read.
      const viewer = await resolveViewer(authenticate, res.locals.credentials as Credentials | null).catch(() => null);
      const avatar = await currentAvatar(app, viewer, model, Number(id));
      const file = avatar === filename ? await app.uploads.avatarFile(model, Number(id), filename) : null;
      if (!file) return next();
      res.set({
        'Content-Type': fileContentType(filename),
        'Content-Disposition': contentDisposition('inline', filename),
        'Cache-Control': CACHE_CONTROL[model],
      });
      res.sendFile(file.path, { cacheControl: false, dotfiles: 'allow' }, (error) => error && next(error));
    } catch (error) {
      next(error);
    }
  });
  return router;
}
