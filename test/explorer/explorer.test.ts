/**
 * GraphiQL at /-/graphql-explorer: the page and its assets over plain HTTP, then the page in a real browser (Debian's
 * Chromium driven by playwright-core) against the real server: a token given in the Headers pane signs a query in
 * over HTTP and a subscription in over graphql-ws, a pipeline changed from outside shows up in the result pane, and
 * nothing is loaded from anywhere but the server. The browser tests skip, saying why, where /usr/bin/chromium is absent.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { suiteServer } from '../support/server.js';
import { createUser } from '../support/factories.js';
import { projectWithPipeline } from '../pipelines/support.js';

const CHROMIUM = '/usr/bin/chromium';
const missing = existsSync(CHROMIUM) ? null : `${CHROMIUM} is absent (Debian's chromium package: apt-get install chromium)`;
if (missing) console.warn(`test/explorer/explorer.test.ts: the browser tests are skipped: ${missing}`);
const skipped = missing ? ` (skipped: ${missing})` : '';

const t = suiteServer();

const ASSETS: [string, string][] = [
  ['react.production.min.js', 'text/javascript; charset=utf-8'],
  ['react-dom.production.min.js', 'text/javascript; charset=utf-8'],
  ['graphiql.min.js', 'text/javascript; charset=utf-8'],
  ['graphiql.min.css', 'text/css; charset=utf-8'],
  ['explorer.js', 'text/javascript; charset=utf-8'],
];

describe('GET /-/graphql-explorer', () => {
  it('answers the page as HTML that loads only our assets, under a CSP allowing scripts from the server alone', async () => {
    const res = await fetch(`${t.url}/-/graphql-explorer`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = await res.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1].replace(/\?v=[^"]*$/, ''));
    // `data:,` is the icon, so that the browser does not ask for /favicon.ico.
    expect(sources.sort()).toEqual([...ASSETS.map(([name]) => `/-/graphql-explorer/assets/${name}`), 'data:,'].sort());
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/); // no inline script
  });

  it('serves each asset with its content type and a year of caching, and 404s any other name', async () => {
    for (const [name, type] of ASSETS) {
      const res = await fetch(`${t.url}/-/graphql-explorer/assets/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type'), name).toBe(type);
      expect(res.headers.get('cache-control'), name).toBe('public, max-age=31536000, immutable');
      expect((await res.arrayBuffer()).byteLength, name).toBeGreaterThan(100);
    }
    for (const name of ['graphiql.js', 'package.json', '..%2Fpackage.json', 'react.development.js']) {
      const res = await fetch(`${t.url}/-/graphql-explorer/assets/${name}`);
      expect(res.status, name).toBe(404);
      expect(await res.json()).toEqual({ error: '404 Not Found' });
    }
  });
});

const QUERY_EDITOR = '.graphiql-query-editor .CodeMirror';
// The Headers pane is open from the start (defaultEditorToolsVisibility); the hidden editor beside it is Variables.
const HEADERS_EDITOR = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';

/** The text of GraphiQL's result pane (a CodeMirror editor). */
function resultPane(page: Page, text: string) {
  return page.locator('.result-window', { hasText: text });
}

interface CodeMirrorElement {
  CodeMirror: { getValue(): string; documentAST?: { loc?: { source: { body: string } } } | null };
}

/** Replaces the text of a CodeMirror editor as a user would: click in, select all, type (as one input). */
async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await page.locator(selector).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
  expect(await page.locator(selector).evaluate((el) => (el as unknown as CodeMirrorElement).CodeMirror.getValue())).toBe(text);
}

/**
 * Types an operation into the query editor, then waits for GraphiQL to have parsed it: it parses the editor 100 ms
 * after the last change, and its fetcher tells a subscription (graphql-ws) from a query (HTTP) by that parse.
 */
async function typeOperation(page: Page, text: string): Promise<void> {
  await typeInto(page, QUERY_EDITOR, text);
  await page.waitForFunction(
    ({ selector, text }) => (globalThis as unknown as { document: { querySelector(s: string): CodeMirrorElement } }).document.querySelector(selector).CodeMirror.documentAST?.loc?.source.body === text,
    { selector: QUERY_EDITOR, text },
  );
}

describe('GraphiQL in Chromium', () => {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (missing) return;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(() => browser?.close());

  /** A page of its own context on the explorer, recording every request and socket it opens and its errors. */
  async function openExplorer() {
    const context = await browser!.newContext();
    const page = await context.newPage();
    const requests: string[] = [];
    const sockets: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('websocket', (ws) => sockets.push(ws.url()));
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused/i.test(m.text())) errors.push(m.text());
    });
    await page.goto(`${t.url}/-/graphql-explorer`);
    await page.locator(QUERY_EDITOR).waitFor();
    await page.locator(HEADERS_EDITOR).waitFor();
    const origin = new URL(t.url);
    const offOrigin = () => [
      ...requests.filter((u) => new URL(u).origin !== origin.origin),
      ...sockets.filter((u) => new URL(u).host !== origin.host),
    ];
    return { context, page, requests, sockets, errors, offOrigin };
  }

  it.skipIf(missing !== null)(`runs a query with the token given in the Headers pane${skipped}`, async () => {
    const user = await createUser(t);
    const { context, page, requests, errors, offOrigin } = await openExplorer();
    try {
      await typeInto(page, HEADERS_EDITOR, JSON.stringify({ 'PRIVATE-TOKEN': user.token }));
      await typeOperation(page, '{ currentUser { username } }');
      await page.locator('.graphiql-execute-button').click();
      await resultPane(page, `"username": "${user.username}"`).waitFor();

      for (const [name] of ASSETS) expect(requests.some((u) => u.includes(`/-/graphql-explorer/assets/${name}?v=`)), name).toBe(true);
      expect(requests).toContain(`${t.url}/api/graphql`);
      expect(offOrigin()).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it.skipIf(missing !== null)(`shows a pipeline's new status through a subscription signed in with the same token${skipped}`, async () => {
    const user = await createUser(t);
    // A project of the user's with a pending pipeline, made while the page loads.
    const [{ project, pipeline }, { context, page, sockets, errors, offOrigin }] = await Promise.all([projectWithPipeline(t, user.token), openExplorer()]);
    try {
      await typeInto(page, HEADERS_EDITOR, JSON.stringify({ Authorization: `Bearer ${user.token}` }));
      await typeOperation(page, `subscription { ciPipelineStatusUpdated(pipelineId: "gid://gitlab/Ci::Pipeline/${pipeline.id}") { id status } }`);
      // What the page sends on its graphql-ws socket: the token in connection_init, then the subscription.
      const sent: string[] = [];
      const subscribed = new Promise<void>((resolve) =>
        page.on('websocket', (ws) =>
          ws.on('framesent', ({ payload }) => {
            sent.push(String(payload));
            if (String(payload).includes('"subscribe"')) resolve();
          }),
        ),
      );
      await page.locator('.graphiql-execute-button').click();
      await subscribed;
      expect(sockets).toEqual([`${t.url.replace('http:', 'ws:')}/api/graphql`]);
      expect(JSON.parse(sent[0])).toEqual({ type: 'connection_init', payload: { Authorization: `Bearer ${user.token}` } });

      // graphql-ws does not acknowledge a subscription, so the server may not be listening yet when the subscribe
      // message has left: cancel, and if the pane has not shown it within a second, retry and cancel again.
      const api = (action: string) => t.api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/${action}`, { token: user.token });
      for (let attempt = 1; ; attempt++) {
        expect((await api('cancel')).status).toBe(200);
        const heard = await resultPane(page, '"status": "CANCELED"')
          .waitFor({ timeout: 1000 })
          .then(() => true, () => false);
        if (heard) break;
        if (attempt === 10) throw new Error('the result pane never showed the canceled pipeline');
        expect((await api('retry')).status).toBe(201);
      }
      await resultPane(page, `"id": "gid://gitlab/Ci::Pipeline/${pipeline.id}"`).waitFor();
      expect(offOrigin()).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
