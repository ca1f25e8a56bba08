/** Snippets (GitLab's `lib/api/snippets.rb` and `lib/api/project_snippets.rb`). */
import type { RestRoute } from '../../rest/route.js';

const snippet = '/snippets/:id';
const projectSnippets = '/projects/:id/snippets';
const projectSnippet = `${projectSnippets}/:snippet_id`;

export const snippetRoutes: RestRoute[] = [
  // The lists call `authenticate!` (401 for anonymous callers), public snippets included.
  { method: 'GET', path: '/snippets', operation: 'RestListSnippets', result: 'snippets', paginate: true, authenticate: true },
  { method: 'GET', path: '/snippets/public', operation: 'RestListPublicSnippets', result: 'snippets', paginate: true, authenticate: true },
  { method: 'GET', path: '/snippets/all', operation: 'RestListAllSnippets', result: 'snippets', paginate: true, authenticate: true },
  { method: 'GET', path: snippet, operation: 'RestGetSnippet', result: 'snippet', notFound: 'Snippet' },
  { method: 'GET', path: `${snippet}/raw`, operation: 'RestGetSnippetRaw', result: 'snippet.rawBlob', notFound: 'Snippet', raw: true },
  { method: 'GET', path: `${snippet}/files/:ref/:file_path/raw`, operation: 'RestGetSnippetFileRaw', result: 'snippet.blob', notFound: 'Snippet', raw: true },
  { method: 'GET', path: `${snippet}/user_agent_detail`, operation: 'RestGetSnippetUserAgentDetail', result: 'snippetUserAgentDetail', authenticate: true },
  { method: 'POST', path: '/snippets', operation: 'RestCreateSnippet', result: 'createSnippet.snippet' },
  { method: 'PUT', path: snippet, operation: 'RestUpdateSnippet', result: 'updateSnippet.snippet' },
  { method: 'DELETE', path: snippet, operation: 'RestDeleteSnippet', result: 'destroySnippet', status: 204 },
  { method: 'GET', path: projectSnippets, operation: 'RestListProjectSnippets', result: 'project.snippets', paginate: true, notFound: 'Project' },
  { method: 'GET', path: projectSnippet, operation: 'RestGetProjectSnippet', result: 'project.snippet', notFound: 'Snippet' },
  { method: 'GET', path: `${projectSnippet}/raw`, operation: 'RestGetProjectSnippetRaw', result: 'project.snippet.rawBlob', notFound: 'Snippet', raw: true },
  { method: 'GET', path: `${projectSnippet}/files/:ref/:file_path/raw`, operation: 'RestGetProjectSnippetFileRaw', result: 'project.snippet.blob', notFound: 'Snippet', raw: true },
  { method: 'GET', path: `${projectSnippet}/user_agent_detail`, operation: 'RestGetProjectSnippetUserAgentDetail', result: 'project.snippet.userAgentDetail', notFound: 'Snippet', authenticate: true },
  { method: 'POST', path: projectSnippets, operation: 'RestCreateProjectSnippet', result: 'createSnippet.snippet' },
  { method: 'PUT', path: projectSnippet, operation: 'RestUpdateProjectSnippet', result: 'updateSnippet.snippet' },
  { method: 'DELETE', path: projectSnippet, operation: 'RestDeleteProjectSnippet', result: 'destroySnippet', status: 204 },
];
