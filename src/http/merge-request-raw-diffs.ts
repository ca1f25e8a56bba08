/**
 * GitLab's `GET /projects/:id/merge_requests/:merge_request_iid/raw_diffs` (lib/api/merge_requests.rb's
 * `send_git_diff`, which Workhorse serves from Gitaly's RawDiff): the merge request's diff from its merge base to its
 * head, streamed from `git diff` as it comes, so its size is no memory's concern. Not GraphQL: the answer is bytes.
 * Who may read it is the merge requests service's decision (read_merge_request); the diff's refs are its own.
 */
import express from 'express';
import type { CredentialsAuthenticator } from '../auth/credentials.js';
import type { App } from '../context.js';
import type { Lane } from '../db/database.js';
import { iidOf, parseRef } from '../graphql/ids.js';
import { readerContext, streamGit, streamRoute } from './repository-archive.js';

/** GitLab's Gitlab::NoCacheHeaders, and Grape's default format naming the body (send_git_diff sets no content type; Workhorse keeps it). */
const RAW_DIFF_HEADERS = {
  'Content-Type': 'application/json',
  'Content-Disposition': 'inline',
  'Cache-Control': 'max-age=0, private, must-revalidate, no-store, no-cache',
  Expires: 'Fri, 01 Jan 1990 00:00:00 GMT',
};

export function mergeRequestRawDiffs(app: App, authenticators: Record<Lane, CredentialsAuthenticator>) {
  const router = express.Router();
  const template = '/projects/:id/merge_requests/:merge_request_iid/raw_diffs';
  router.get(
    template,
    streamRoute(app, template, async (req, res) => {
      const { services } = await readerContext(authenticators, app, res);
      const project = await services.projects.get(parseRef(String(req.params.id), 'Project', 'id'));
      const mr = await services.merge_requests.get(project, iidOf(String(req.params.merge_request_iid)));
      const plan = await services.merge_requests.versions.rawDiff(project, await services.merge_requests.git.diffRefs(mr));
      if (!plan) return void res.status(200).set(RAW_DIFF_HEADERS).end();
      await streamGit(app, req, res, { ...plan, headers: RAW_DIFF_HEADERS, failure: () => new Error('git diff failed') });
    }),
  );
  return router;
}
