/**
 * The Releases API (GitLab's `lib/api/releases.rb`) and release links (`lib/api/release/links.rb`); each takes a CI
 * job token. `permalink/latest` and asset downloads answer redirects: http.ts.
 */
import type { RestRoute } from '../../rest/route.js';

const releases = '/projects/:id/releases';
const release = `${releases}/:tag_name`;
const links = `${release}/assets/links`;

export const releaseRoutes: RestRoute[] = [
  { method: 'GET', path: '/groups/:id/releases', operation: 'RestListGroupReleases', result: 'group.releases', paginate: true, notFound: 'Group' },
  { method: 'GET', path: releases, operation: 'RestListReleases', result: 'project.releases', paginate: true, notFound: 'Project', jobToken: true },
  { method: 'GET', path: release, operation: 'RestGetRelease', result: 'project.release', notFound: 'Project', jobToken: true },
  { method: 'POST', path: releases, operation: 'RestCreateRelease', result: 'releaseCreate.release', jobToken: true },
  { method: 'PUT', path: release, operation: 'RestUpdateRelease', result: 'releaseUpdate.release', jobToken: true },
  // GitLab answers a deletion with the release deleted.
  { method: 'DELETE', path: release, operation: 'RestDeleteRelease', result: 'releaseDelete.release', status: 200, jobToken: true },
  // `status :accepted`, whose value Grape sends as the body: `202`.
  { method: 'POST', path: `${release}/evidence`, operation: 'RestCreateReleaseEvidence', result: 'releaseEvidenceCreate.status', status: 202, jobToken: true },
  { method: 'GET', path: links, operation: 'RestListReleaseLinks', result: 'project.releaseAssetLinks', paginate: true, notFound: 'Project', jobToken: true },
  { method: 'GET', path: `${links}/:link_id`, operation: 'RestGetReleaseLink', result: 'project.releaseAssetLink', notFound: 'Project', jobToken: true },
  { method: 'POST', path: links, operation: 'RestCreateReleaseLink', result: 'releaseAssetLinkCreate.link', jobToken: true },
  { method: 'PUT', path: `${links}/:link_id`, operation: 'RestUpdateReleaseLink', result: 'releaseAssetLinkUpdate.link', jobToken: true },
  { method: 'DELETE', path: `${links}/:link_id`, operation: 'RestDeleteReleaseLink', result: 'releaseAssetLinkDelete.link', status: 200, jobToken: true },
];
