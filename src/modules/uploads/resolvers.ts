import type { Context } from '../../context.js';
import { exactlyOneOf, missing } from '../../errors.js';
import { globalId, parseRef } from '../../graphql/ids.js';
import type { PageArgs } from '../../graphql/connection.js';
import type { UploadedFile } from '../../uploads/storage.js';
import type { ProjectRow } from '../projects/service.js';
import { markdownLink, markdownName, pathParts, uploadFullPath, uploadUrl } from './files.js';
import type { UploadRow, UploadTarget } from './service.js';

interface TargetArgs {
  id?: number | null;
  secret?: string | null;
  filename?: string | null;
}

/** An upload named by ID, or by secret and file name (both then needed). */
function target(args: TargetArgs): UploadTarget {
  if (args.id != null) return { id: args.id };
  const absent = (['secret', 'filename'] as const).filter((name) => args[name] == null);
  if (absent.length) throw missing(...absent);
  return { secret: args.secret as string, filename: args.filename as string };
}

export const uploadsResolvers = {
  Project: {
    uploads: (p: ProjectRow, args: PageArgs, ctx: Context) => ctx.services.uploads.list(p, args),
    upload: (p: ProjectRow, args: TargetArgs, ctx: Context) => ctx.services.uploads.get(p, target(args)),
  },
  Mutation: {
    projectUploadCreate: async (_: unknown, args: { projectPath: string; file?: UploadedFile | null }, ctx: Context) => {
      const project = await ctx.services.projects.get(parseRef(args.projectPath, 'Project', 'projectPath'));
      return { upload: await ctx.services.uploads.create(project, args.file ?? null) };
    },
    uploadDelete: async (_: unknown, args: TargetArgs & { projectPath?: string | null; groupPath?: string | null }, ctx: Context) => {
      if ((args.projectPath == null) === (args.groupPath == null)) throw exactlyOneOf('projectPath', 'groupPath');
      if (args.groupPath != null) {
        await ctx.services.groups.get(parseRef(args.groupPath, 'Group', 'groupPath'));
        return ctx.services.uploads.refuseGroupUpload();
      }
      const project = await ctx.services.projects.get(parseRef(args.projectPath as string, 'Project', 'projectPath'));
      return { upload: await ctx.services.uploads.destroy(project, target(args)) };
    },
  },
  FileUpload: {
    id: (u: UploadRow) => globalId('Upload', u.id),
    databaseId: (u: UploadRow) => u.id,
    size: (u: UploadRow) => Number(u.size),
    filename: (u: UploadRow) => pathParts(u.path).filename,
    uploadedBy: (u: UploadRow, _a: unknown, ctx: Context) => (u.uploadedByUserId === null ? null : ctx.loaders.users.byId.load(u.uploadedByUserId)),
    alt: (u: UploadRow) => markdownName(pathParts(u.path).filename),
    url: (u: UploadRow) => uploadUrl(u),
    fullPath: (u: UploadRow) => uploadFullPath(u),
    markdown: (u: UploadRow) => markdownLink(pathParts(u.path).filename, uploadUrl(u)),
    file: (u: UploadRow, _a: unknown, ctx: Context) => ctx.services.uploads.download(u),
  },
};
