/**
 * The block explorer at /explorer/: a page of static files shipped with the node (packages/node/explorer/,
 * no build step, nothing loaded from another origin) that reads the API from the browser. Served
 * beside the route table, as the Swagger UI is: not in the OpenAPI document, and without credentials
 * (the page asks for them when the API does). Only the files of a fixed list are served, read once;
 * every answer carries a Content-Security-Policy that keeps the page to its own origin.
 */
import { readFile } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { packageFile } from '../util/package-files.ts';

/** The URL prefix of the explorer. */
// inferred: the reference serves no page (docs/design/fidelity.md "Explorer")
export const EXPLORER_PREFIX = '/explorer';

/** The served files and their content types; any other name under the prefix is a 404. */
const FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'explorer.js': 'text/javascript; charset=utf-8',
  'explorer.css': 'text/css; charset=utf-8',
};

/**
 * Scripts, styles, images and requests from the node's own origin only; no inline script, no
 * framing, no plugin, no form posting elsewhere.
 */
export const EXPLORER_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Whether a request path (without its query) is one of the explorer's, served without credentials. */
export function isExplorerPath(path: string): boolean {
  return path === EXPLORER_PREFIX || path.startsWith(`${EXPLORER_PREFIX}/`);
}

/** The explorer's files, read on first use and kept (they are small and do not change while running). */
const cache = new Map<string, Promise<Buffer>>();

function load(name: string): Promise<Buffer> {
  let p = cache.get(name);
  if (!p) {
    p = readFile(packageFile(`explorer/${name}`));
    // A read that failed is tried again on the next request.
    p.catch(() => cache.delete(name));
    cache.set(name, p);
  }
  return p;
}

async function sendFile(reply: FastifyReply, name: string): Promise<void> {
  const type = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
  if (type === undefined) {
    reply.code(404).header('content-length', '0').send('');
    return;
  }
  let body: Buffer;
  try {
    body = await load(name);
  } catch {
    // A build or checkout without the explorer's folder: as if it were not there.
    reply.code(404).header('content-length', '0').send('');
    return;
  }
  reply
    .code(200)
    .header('content-type', type)
    .header('content-security-policy', EXPLORER_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-cache')
    .send(body);
}

/** Adds the explorer's routes (GET, and HEAD through fastify's HEAD of each GET route). */
export function installExplorer(app: FastifyInstance): void {
  // The page's relative URLs resolve under the prefix only with its trailing slash.
  app.get(EXPLORER_PREFIX, async (_req, reply) => {
    reply.code(308).header('location', `${EXPLORER_PREFIX}/`).header('content-length', '0').send('');
  });
  app.get(`${EXPLORER_PREFIX}/`, (_req, reply) => sendFile(reply, 'index.html'));
  app.get<{ Params: { file: string } }>(`${EXPLORER_PREFIX}/:file`, (req, reply) =>
    sendFile(reply, req.params.file),
  );
}
