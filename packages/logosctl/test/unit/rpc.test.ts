/** The RPC line reader: bounded lines, one request line only, nothing parsed after a bad line. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Json } from '@logos-ts/shared/json';
import { LineTooLong, type ReadLinesOptions, readLines } from '../../src/rpc.ts';

const dir = mkdtempSync(join(tmpdir(), 'ctl-rpc-'));
const servers: Server[] = [];
after(() => {
  for (const s of servers) s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends `chunks` to a reader with `opts`; returns what it saw once the client has closed. */
async function feed(name: string, chunks: string[], opts: ReadLinesOptions) {
  const lines: Json[] = [];
  const bad: Error[] = [];
  const path = join(dir, `${name}.sock`);
  const closed = new Promise<void>((resolve) => {
    const server = createServer((s: Socket) => {
      readLines(
        s,
        (j) => lines.push(j),
        (e) => bad.push(e),
        opts,
      );
      s.on('close', () => resolve());
      s.on('end', () => s.end());
    });
    servers.push(server);
    server.listen(path);
  });
  await new Promise((r) => setTimeout(r, 20));
  const c = connect(path);
  await new Promise((r) => c.once('connect', r));
  for (const ch of chunks) {
    await new Promise((r) => c.write(ch, r));
    await new Promise((r) => setTimeout(r, 15)); // each chunk arrives on its own
  }
  c.end();
  await closed;
  return { lines, bad };
}

test('a line past maxLine is refused once, and nothing after it is parsed', async () => {
  const r = await feed('long', ['x'.repeat(600), 'y'.repeat(600), '\n{"a":1}\n'], { maxLine: 1000 });
  assert.equal(r.bad.length, 1);
  assert.ok(r.bad[0] instanceof LineTooLong);
  assert.deepEqual(r.lines, []);
});

test('once: only the first request line is read', async () => {
  const r = await feed('once', ['{"a":1}\n{"b":2}\n', '{"c":3}\n'], { once: true });
  assert.deepEqual(r.lines, [{ a: 1 }]);
  assert.deepEqual(r.bad, []);
});

test('after a line that is not JSON, later lines are not parsed', async () => {
  const r = await feed('bad', ['nope\n{"a":1}\n', '{"b":2}\n'], {});
  assert.equal(r.bad.length, 1);
  assert.deepEqual(r.lines, []);
  const ok = await feed('ok', ['{"a":1}\n', '{"b":2}\n'], {});
  assert.deepEqual(ok.lines, [{ a: 1 }, { b: 2 }]);
});
