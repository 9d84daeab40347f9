/**
 * The server's own mechanisms, on a real node's chain with extra routes that only these tests serve:
 * `max_concurrent_requests` (requests beyond it wait, within the timeout; streams hold no permit)
 * and the gating of endpoints while consensus is Bootstrapping (408 after the timeout, answered
 * once Online).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { ROUTES } from '../../../src/api/impl/index.ts';
import { object, string } from '../../../src/api/json-schema.ts';
import { ApiServer } from '../../../src/api/server.ts';
import { streamClients } from '../../../src/api/streams.ts';
import type { ApiContext, ServerRoute } from '../../../src/api/types.ts';
import { devnetConfig } from '../../../src/node/devnet.ts';
import type { LogosNode } from '../../../src/node/node.ts';
import type { Semaphore } from '../../../src/util/semaphore.ts';
import { FAST } from '../../mocks/fast-deployment.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

let tn: TestNode;
let node: LogosNode;
let ctx: ApiContext;

before(async () => {
  // Stays Bootstrapping until a test switches it Online.
  tn = await startFastNode({ bootstrap: { force_bootstrap: true, prolonged_bootstrap_period: 3600 } });
  node = tn.node;
  ctx = {
    build: { commit: null, tag: null },
    chain: node.chain,
    clock: node.clock,
    deployment: FAST,
    mempool: node.mempool,
    phase: () => node.phase,
    setLogFilter: () => {},
    get wallet(): never {
      throw new Error('not read by these tests');
    },
    get pow(): never {
      throw new Error('not read by these tests');
    },
    get ops(): never {
      throw new Error('not read by these tests');
    },
    get network(): never {
      throw new Error('not read by these tests');
    },
    get blend(): never {
      throw new Error('not read by these tests');
    },
  };
});
after(() => tn.stop());

const byId = (id: string) => ROUTES.find((r) => r.operationId === id)!;

/** A route whose handler waits until the test lets it go. */
function heldRoute() {
  const entered: (() => void)[] = [];
  const route: ServerRoute = {
    operationId: 'held',
    def: {
      method: 'GET',
      path: '/test/held',
      tag: 'Test',
      summary: 'held',
      response: { json: object({ ok: string }) },
    },
    handle: () =>
      new Promise((resolve) => {
        entered.push(() => resolve({ body: '{"ok":"yes"}' }));
      }),
  };
  return { route, entered };
}

async function serve(
  routes: readonly ServerRoute[],
  backend: { timeout: number; max_concurrent_requests: number; max_body_size?: number },
) {
  const cfg = devnetConfig().api.backend;
  const server = await ApiServer.init(
    { backend: { ...cfg, listen_address: '127.0.0.1:0', ...backend } },
    pino({ level: 'silent' }),
    routes,
  );
  const base = `http://${await server.serve(ctx)}`;
  return { server, base };
}

async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  await waitUntil(cond, ms, what);
}

/** The server's request permits (`max_concurrent_requests`): how many are taken, how many requests wait. */
const permits = (server: ApiServer) => (server as unknown as { slots: Semaphore }).slots;

describe('max_concurrent_requests', () => {
  test('requests beyond the limit wait for a permit, then are served in order', async () => {
    const { route, entered } = heldRoute();
    const { server, base } = await serve([route, byId('version')], {
      timeout: 30,
      max_concurrent_requests: 2,
    });
    try {
      const replies = [1, 2, 3].map(() => fetch(`${base}/test/held`).then((r) => r.status));
      await until(() => entered.length === 2 && permits(server).queued === 1, 'two held, the third queued');
      // The third waits; so does any other request while both permits are held.
      let versionDone = false;
      const version = fetch(`${base}/version`).then((r) => {
        versionDone = true;
        return r.status;
      });
      await until(() => permits(server).queued === 2 || versionDone, 'the version request queued');
      assert.equal(versionDone, false);
      assert.equal(entered.length, 2);
      entered[0]!();
      await until(() => entered.length === 3, 'the third held request entered');
      entered[1]!();
      assert.equal(await version, 200);
      entered[2]!();
      assert.deepEqual(await Promise.all(replies), [200, 200, 200]);
    } finally {
      for (const go of entered) go();
      await server.close();
    }
  });

  test('a request waiting past the timeout for a permit gets an empty 408; a timed-out handler keeps its permit until it ends', async () => {
    const { route, entered } = heldRoute();
    const { server, base } = await serve([route, byId('version')], {
      timeout: 1,
      max_concurrent_requests: 1,
    });
    try {
      const first = fetch(`${base}/test/held`);
      await until(() => entered.length === 1, 'the first request entered');
      const a = await first;
      assert.equal(a.status, 408);
      assert.equal(await a.text(), '');
      // The first handler still runs, so its permit is still taken: a request sent after the first's
      // 408 never enters.
      const b = await fetch(`${base}/test/held`);
      assert.equal(b.status, 408);
      assert.equal(await b.text(), '');
      assert.equal(entered.length, 1);
      assert.equal(permits(server).used, 1, "the timed-out handler's permit");
      // Once the first handler ends, the permit is free again.
      entered[0]!();
      await until(() => permits(server).used === 0, 'the permit given back');
      const third = await fetch(`${base}/version`);
      assert.equal(third.status, 200);
    } finally {
      for (const go of entered) go();
      await server.close();
    }
  });

  test('a client that leaves while waiting gives up its place and starts no stream', async () => {
    const { route, entered } = heldRoute();
    const { server, base } = await serve([route, byId('cryptarchiaLibStream')], {
      timeout: 10,
      max_concurrent_requests: 1,
    });
    try {
      const held = fetch(`${base}/test/held`);
      await until(() => entered.length === 1, 'the held request entered');
      const ac = new AbortController();
      const queued = fetch(`${base}/cryptarchia/lib-stream`, { signal: ac.signal }).catch(() => undefined);
      await until(() => permits(server).queued === 1, 'the stream request queued');
      ac.abort();
      await queued;
      await until(() => permits(server).queued === 0, 'the stream request left the queue');
      entered[0]!();
      assert.equal((await held).status, 200);
      assert.deepEqual(
        [permits(server).used, permits(server).queued, streamClients(node.chain, 'lib')],
        [0, 0, 0],
        'the permit is free, nobody waits, no stream started',
      );
    } finally {
      for (const go of entered) go();
      await server.close();
    }
  });

  test('an open stream holds no permit', async () => {
    const { server, base } = await serve(ROUTES, { timeout: 5, max_concurrent_requests: 1 });
    const ac = new AbortController();
    try {
      const stream = await fetch(`${base}/cryptarchia/events/blocks/stream`, { signal: ac.signal });
      assert.equal(stream.status, 200);
      const r = await fetch(`${base}/cryptarchia/info`);
      assert.equal(r.status, 200);
    } finally {
      ac.abort();
      await server.close();
    }
  });
});

describe('gating while Bootstrapping', () => {
  test('a gated endpoint answers 408 while Bootstrapping and is served once Online; others answer at once', async () => {
    assert.equal(node.chain.consensusState, 'Bootstrapping');
    const gated: ServerRoute = {
      operationId: 'gated',
      def: {
        method: 'GET',
        path: '/test/gated',
        tag: 'Test',
        summary: 'gated',
        response: { json: object({ ok: string }) },
        gatedWhileBootstrapping: true,
      },
      handle: () => ({ body: '{"ok":"online"}' }),
    };
    const { server, base } = await serve([gated, byId('cryptarchiaInfo')], {
      timeout: 1,
      max_concurrent_requests: 10,
    });
    // The same routes with a timeout long enough for many requests to wait, however slow the machine.
    const patient = await serve([gated, byId('cryptarchiaInfo')], {
      timeout: 60,
      max_concurrent_requests: 10,
    });
    try {
      const t0 = Date.now();
      const r1 = await fetch(`${base}/test/gated`);
      assert.equal(r1.status, 408);
      assert.equal(await r1.text(), '');
      assert.ok(Date.now() - t0 >= 900, 'answered before the timeout');
      const info = await fetch(`${base}/cryptarchia/info`);
      assert.equal(info.status, 200);
      assert.match(await info.text(), /"state":"Bootstrapping"/);

      // Many waiting requests share one listener on the chain (a gated request waits with its permit:
      // ten hold the ten permits, two wait for one).
      const slots = permits(patient.server);
      // Besides the listeners already there (the PoW service's, the first server's).
      const listeners = node.chain.listenerCount('online');
      const waiting = Array.from({ length: 12 }, () =>
        fetch(`${patient.base}/test/gated`).then((r) => r.status),
      );
      await until(() => slots.used === 10 && slots.queued === 2, 'twelve gated requests waiting');
      assert.equal(node.chain.listenerCount('online'), listeners + 1);
      let done = false;
      const r2 = fetch(`${patient.base}/test/gated`).then(async (r) => {
        done = true;
        return { status: r.status, text: await r.text() };
      });
      await until(() => slots.queued === 3 || done, 'one more gated request waiting');
      assert.equal(done, false);
      node.chain.setOnline();
      assert.deepEqual(await r2, { status: 200, text: '{"ok":"online"}' });
      assert.deepEqual(await Promise.all(waiting), Array(12).fill(200));
      assert.equal(node.chain.listenerCount('online'), 0);
      const r3 = await fetch(`${base}/test/gated`);
      assert.equal(r3.status, 200);
      // The info body is cached per head; the switch to Online shows at once.
      assert.match(await (await fetch(`${base}/cryptarchia/info`)).text(), /"state":"Online"/);
    } finally {
      await Promise.all([server.close(), patient.server.close()]);
    }
  });
});

describe('request bodies', () => {
  test('over max_body_size: 413; malformed JSON: 400; not JSON: 415; wrong shape: 422 (all plain text)', async () => {
    const { server, base } = await serve([byId('adminTracingFilter')], {
      timeout: 5,
      max_concurrent_requests: 10,
      max_body_size: 64,
    });
    const put = (body: string, type = 'application/json') =>
      fetch(`${base}/admin/tracing/filter`, { method: 'PUT', headers: { 'content-type': type }, body });
    try {
      const ok = await put('{"filters":{"*":"info"}}');
      assert.equal(ok.status, 200);
      assert.equal(await ok.text(), 'null');
      for (const [body, type, status] of [
        [`{"filters":{"*":"${'x'.repeat(100)}"}}`, 'application/json', 413],
        ['{"filters":', 'application/json', 400],
        ['{"filters":{"*":"info"}}', 'text/plain', 415],
        ['{"filters":[]}', 'application/json', 422],
      ] as const) {
        const r = await put(body, type);
        assert.equal(r.status, status, `${body} as ${type}`);
        assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
        assert.ok((await r.text()).length > 0);
      }
    } finally {
      await server.close();
    }
  });
});

describe('HEAD', () => {
  test('on every JSON GET route: the status and headers of GET, no body (known, unknown and malformed ids)', async () => {
    const unknown = 'ab'.repeat(32);
    const checked: string[] = [];
    for (const { def } of ROUTES) {
      if (def.method !== 'GET' || 'ndjson' in def.response) continue;
      // Bootstrapping: a gated route would wait for the API timeout.
      if (def.gatedWhileBootstrapping) continue;
      const variants = new Set<string>();
      for (const id of [unknown, 'zz']) {
        const path = def.path.replace(/\{[^}]+\}/g, id);
        variants.add(path);
        for (const q of Object.keys(def.query ?? {})) variants.add(`${path}?${q}=${id}`);
      }
      for (const path of variants) {
        const g = await fetch(`${tn.base}${path}`, { signal: AbortSignal.timeout(10_000) });
        await g.arrayBuffer();
        const h = await fetch(`${tn.base}${path}`, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
        assert.equal(h.status, g.status, `HEAD ${path}: the status of GET`);
        assert.equal(
          h.headers.get('content-type'),
          g.headers.get('content-type'),
          `HEAD ${path}: content-type`,
        );
        assert.equal(await h.text(), '', `HEAD ${path}: no body`);
        checked.push(path);
      }
    }
    assert.ok(
      checked.some((p) => p.startsWith('/leader/claim/vouchers?tip=')),
      checked.join('\n'),
    );
    assert.ok(checked.length > 20, `${checked.length} paths`);
  });

  test('on the streams: the headers only, at once, without reading the range or subscribing', async () => {
    const { server, base } = await serve(ROUTES, { timeout: 5, max_concurrent_requests: 10 });
    try {
      for (const path of [
        '/cryptarchia/blocks_range?slot_from=0&slot_to=18446744073709551615',
        '/cryptarchia/events/blocks/stream',
      ]) {
        const r = await fetch(`${base}${path}`, { method: 'HEAD', signal: AbortSignal.timeout(5000) });
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('content-type'), 'application/x-ndjson');
        assert.equal(await r.text(), '');
      }
      assert.equal(streamClients(node.chain, 'block'), 0);
    } finally {
      await server.close();
    }
  });
});
