/** GraphQL resolvers of project access tokens; the REST routes run through them too. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseId, parseRef } from '../../graphql/ids.js';
import type { ProjectRow } from '../projects/service.js';
import type { ProjectAccessTokenInput, ProjectAccessTokenRow } from './service.js';

/** A project access token is its bot's personal access token, and has that global ID. */
const TYPE = 'PersonalAccessToken';

/**
 * GitLab declares `token_id` a String and looks it up: anything that is not an ID names no token (404), where a
 * global ID of another type is refused as GraphQL refuses it.
 */
const tokenId = (id: string) => (/^\d+$/.test(id) || id.startsWith('gid://') ? parseId(id, TYPE, 'id') : -1);

const projectOf = (ctx: Context, projectPath: string) => ctx.services.projects.get(parseRef(projectPath, 'Project', 'projectPath'));

interface TokenRef {
  projectPath: string;
  id: string;
}

/** GitLab authenticates before it looks the project up: anonymous callers get 401 whatever the project. */
const signedInProject = (ctx: Context, projectPath: string) => {
  ctx.access.requireViewer();
  return projectOf(ctx, projectPath);
};

type ListArgs = { state?: 'active' | 'inactive' | null } & PageArgs;

export const projectAccessTokenResolvers = {
  Query: {
    projectAccessTokens: async (_: unknown, args: ListArgs & { projectPath: string }, ctx: Context) =>
      ctx.services.project_access_tokens.list(await signedInProject(ctx, args.projectPath), { state: args.state }, args),
    projectAccessToken: async (_: unknown, args: TokenRef, ctx: Context) =>
      ctx.services.project_access_tokens.get(await signedInProject(ctx, args.projectPath), tokenId(args.id)),
  },
  Project: {
    accessTokens: (project: ProjectRow, args: ListArgs, ctx: Context) =>
      ctx.services.project_access_tokens.list(project, { state: args.state }, args),
    accessToken: (project: ProjectRow, args: { id: string }, ctx: Context) => ctx.services.project_access_tokens.get(project, tokenId(args.id)),
  },
  // The tokens module resolves the token's own fields.
  PersonalAccessToken: {
    accessLevel: (token: ProjectAccessTokenRow, _a: unknown, ctx: Context) => ctx.services.project_access_tokens.botLevel(token.userId),
  },
  Mutation: {
    projectAccessTokenCreate: async (_: unknown, input: ProjectAccessTokenInput & { projectPath: string }, ctx: Context) => ({
      projectAccessToken: await ctx.services.project_access_tokens.create(await projectOf(ctx, input.projectPath), input),
    }),
    projectAccessTokenRevoke: async (_: unknown, input: TokenRef, ctx: Context) => ({
      projectAccessToken: await ctx.services.project_access_tokens.revoke(await projectOf(ctx, input.projectPath), tokenId(input.id)),
    }),
    projectAccessTokenRotate: async (_: unknown, input: TokenRef & { expiresAt?: Date | null }, ctx: Context) => ({
      projectAccessToken: await ctx.services.project_access_tokens.rotate(await projectOf(ctx, input.projectPath), tokenId(input.id), input.expiresAt),
    }),
    projectAccessTokenSelfRotate: async (_: unknown, input: { projectPath: string; expiresAt?: Date | null }, ctx: Context) => ({
      projectAccessToken: await ctx.services.project_access_tokens.rotateSelf(await projectOf(ctx, input.projectPath), input.expiresAt),
    }),
  },
};
