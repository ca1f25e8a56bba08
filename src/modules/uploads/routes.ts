/** The Markdown uploads API of projects (GitLab's `lib/api/markdown_uploads.rb`). */
import type { RestRoute } from '../../rest/route.js';

const uploads = '/projects/:id/uploads';
const download = { result: 'project.upload.file', notFound: 'Project', raw: true, headers: { 'Content-Disposition': 'content_disposition' } } as const;

export const uploadRoutes: RestRoute[] = [
  // `authenticate_non_get!`: a write needs a signed-in caller before anything else is looked at.
  { method: 'POST', path: uploads, operation: 'RestCreateProjectUpload', result: 'projectUploadCreate.upload', authenticate: true },
  { method: 'GET', path: uploads, operation: 'RestListProjectUploads', result: 'project.uploads', paginate: true, notFound: 'Project' },
  { method: 'GET', path: `${uploads}/:upload_id`, operation: 'RestGetProjectUpload', ...download },
  { method: 'GET', path: `${uploads}/:secret/:filename`, operation: 'RestGetProjectUpload', ...download },
  { method: 'DELETE', path: `${uploads}/:upload_id`, operation: 'RestDeleteProjectUpload', result: 'uploadDelete.upload', status: 204, authenticate: true },
  { method: 'DELETE', path: `${uploads}/:secret/:filename`, operation: 'RestDeleteProjectUpload', result: 'uploadDelete.upload', status: 204, authenticate: true },
];
