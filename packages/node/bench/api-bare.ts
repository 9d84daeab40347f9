/**
 * Child process of the API benchmarks (bench/api.bench.ts): a bare `node:http` server on 127.0.0.1 and
 * an ephemeral port that answers every request with one fixed response (status 200, the given headers
 * and body bytes). The parent sends `{type:'serve', headers, body}` (body in base64) and gets
 * `{type:'ready', url}`; the server stops on `{type:'stop'}`, SIGTERM/SIGINT, or when the parent goes
 * away.
 */
import { createServer, type Server } from 'node:http';

type Msg = { type: string; [k: string]: unknown };

let server: Server | undefined;

function shutdown(code: number): void {
  server?.closeAllConnections();
  server?.close();
  process.exit(code);
}

process.on('disconnect', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));
process.on('SIGINT', () => shutdown(0));

process.on('message', (m: Msg) => {
  if (m.type === 'stop') shutdown(0);
  if (m.type !== 'serve' || server) return;
  const headers = m.headers as Record<string, string>;
  const body = Buffer.from(m.body as string, 'base64');
  const all = { ...headers, 'content-length': String(body.length) };
  server = createServer((_req, res) => {
    res.writeHead(200, all);
    res.end(body);
  });
  server.keepAliveTimeout = 72_000;
  server.listen(0, '127.0.0.1', () => {
    const addr = server!.address();
    if (addr === null || typeof addr === 'string') throw new Error('no TCP address');
    process.send?.({ type: 'ready', url: `http://127.0.0.1:${addr.port}` });
  });
});
