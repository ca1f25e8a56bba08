/**
 * GraphiQL at `/-/graphql-explorer`, GitLab's path for it. GraphiQL 3's UMD bundle and React 18's UMD builds are
 * served from node_modules (npm dependencies; no CDN, no build step), with a page and a small script of ours that
 * wire them to `/api/graphql` on the same origin: HTTP for queries and mutations, graphql-ws for subscriptions.
 * GraphiQL's bundle carries its own graphql-ws client, so graphql-ws's UMD build is not needed.
 *
 * The page runs under a Content-Security-Policy that allows scripts from this server only (no inline script, hence
 * explorer.js as a file); styles may be inline, because GraphiQL's dialogs add a <style> element of their own.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router, type Request, type Response } from 'express';

const JAVASCRIPT = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/**
 * Ours, served as /-/graphql-explorer/assets/explorer.js.
 *
 * How a token reaches the server: the user writes it in GraphiQL's Headers pane, `{"PRIVATE-TOKEN": "glpat-…"}` or
 * `{"Authorization": "Bearer glpat-…"}`. GraphiQL hands that pane's headers to the fetcher with every operation:
 * - queries and mutations: createFetcher adds them to the POST to /api/graphql, as HTTP headers;
 * - subscriptions: given `subscriptionUrl`, createFetcher makes a graphql-ws client for each subscription with
 *   `connectionParams` = those same headers, read when the subscription starts (so a token changed in the pane
 *   counts from the next subscription on). The server reads `PRIVATE-TOKEN` or `Authorization: Bearer` from
 *   connectionParams as it reads them from HTTP headers (src/graphql/subscriptions.ts), and refuses the socket for a
 *   bad token. The client is lazy: its socket closes once its subscription ends (GraphiQL's stop button).
 * Headers are not persisted (`shouldPersistHeaders: false`), so the token is not left in the browser's storage.
 */
const EXPLORER_JS = `'use strict';
(function () {
  var endpoint = location.origin + '/api/graphql';
  var subscriptionUrl = (location.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + location.host + '/api/graphql';
  // Headers from the Headers pane go to HTTP requests as headers and to each subscription's graphql-ws
  // connectionParams (createFetcher passes them on in both cases): one token signs in both ways.
  var fetcher = GraphiQL.createFetcher({ url: endpoint, subscriptionUrl: subscriptionUrl });
  var defaultQuery = [
    '# GraphQL explorer of this GitLab-compatible server: queries and mutations over HTTP (/api/graphql),',
    '# subscriptions over graphql-ws on the same path.',
    '#',
    '# Signed out, you see what anonymous callers see. To act as yourself, put a personal access token',
    '# in the Headers pane below, as one of:',
    '#',
    '#   { "PRIVATE-TOKEN": "glpat-..." }',
    '#   { "Authorization": "Bearer glpat-..." }',
    '#',
    '# It is sent with every query and signs subscriptions in; it is not saved in this browser.',
    '',
    '{',
    '  currentUser {',
    '    username',
    '  }',
    '}',
    '',
  ].join('\\n');
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: defaultQuery,
      defaultHeaders: '',
      defaultEditorToolsVisibility: 'headers',
      shouldPersistHeaders: false,
    }),
  );
})();
`;

interface Asset {
  file?: string;
  text?: string;
  type: string;
  /** In the page's URL for the asset (`?v=`), so a new version is fetched anew despite the year-long caching. */
  version: string;
}

/** The files of a package, found once through Node's resolution from this module (works from src/, dist/ and the bundle). */
function packageFiles(name: string): { dir: string; version: string } {
  const require = createRequire(import.meta.url);
  // Through package.json: graphiql's `exports` do not list its UMD files.
  const manifest = require.resolve(`${name}/package.json`);
  return { dir: dirname(manifest), version: (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version };
}

function assets(): Map<string, Asset> {
  const graphiql = packageFiles('graphiql');
  const react = packageFiles('react');
  const reactDom = packageFiles('react-dom');
  return new Map<string, Asset>([
    ['react.production.min.js', { file: join(react.dir, 'umd', 'react.production.min.js'), type: JAVASCRIPT, version: react.version }],
    ['react-dom.production.min.js', { file: join(reactDom.dir, 'umd', 'react-dom.production.min.js'), type: JAVASCRIPT, version: reactDom.version }],
    ['graphiql.min.js', { file: join(graphiql.dir, 'graphiql.min.js'), type: JAVASCRIPT, version: graphiql.version }],
    ['graphiql.min.css', { file: join(graphiql.dir, 'graphiql.min.css'), type: CSS, version: graphiql.version }],
    ['explorer.js', { text: EXPLORER_JS, type: JAVASCRIPT, version: createHash('sha256').update(EXPLORER_JS).digest('hex').slice(0, 12) }],
  ]);
}

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  // 'self' covers ws: and wss: on this host too (CSP Level 3).
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

function page(files: Map<string, Asset>): string {
  const url = (name: string) => `/-/graphql-explorer/assets/${name}?v=${files.get(name)!.version}`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphQL explorer</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${url('graphiql.min.css')}">
<style>html, body, #graphiql { height: 100%; margin: 0; }</style>
<script src="${url('react.production.min.js')}" defer></script>
<script src="${url('react-dom.production.min.js')}" defer></script>
<script src="${url('graphiql.min.js')}" defer></script>
<script src="${url('explorer.js')}" defer></script>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
</body>
</html>
`;
}

/** The explorer's routes, to be mounted at `/-/graphql-explorer`; package files are found once, here. */
export function graphqlExplorer(): Router {
  const files = assets();
  const html = page(files);
  const router = Router();
  router.get('/', (_req: Request, res: Response) => {
    res.setHeader('Content-Security-Policy', CSP);
    res.type('html').send(html);
  });
  router.get('/assets/:name', (req: Request, res: Response, next) => {
    const asset = files.get(String(req.params.name));
    if (!asset) return next(); // the server's 404
    res.setHeader('Content-Type', asset.type);
    // Replaces requestBasics' `no-cache`: the page asks for each asset with its version in the URL.
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    if (asset.text !== undefined) return void res.send(asset.text);
    // sendFile answers conditional requests and HEAD; Cache-Control is ours, set above.
    res.sendFile(asset.file!, { cacheControl: false }, (error) => {
      if (error && !res.headersSent) next(error);
    });
  });
  return router;
}
