/**
 * The Prometheus endpoint of a running node: its own listener (never the API's port), text that parses
 * as the exposition format, values equal to what the API reports, counters that only grow, label sets
 * bounded whatever paths clients ask for; the default address taken leaves a node without metrics, a
 * configured one taken stops it.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { ConfigError } from '@logos-ts/shared/config-fields';
import { pino } from 'pino';
import {
  COUNTERS,
  EVENT_COUNTERS,
  GAUGES,
  HISTOGRAMS,
  MetricsService,
  parseMetricsSection,
} from '../../../src/metrics/index.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Parses the Prometheus text format strictly: every line a comment, blank, or a sample. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (-?[0-9.e+-]+|[Nn]a[Nn]|\+Inf|-Inf)$/;
  const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) continue;
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      assert.match(type!, /^(counter|gauge|histogram|summary|untyped)$/, line);
      types.set(name!, type!);
      continue;
    }
    const m = SAMPLE.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[4]) });
  }
  return { samples, types };
}

const key = (s: Sample) => `${s.name}${JSON.stringify(s.labels)}`;

let t: TestNode;
let metricsUrl: string;

async function scrape(): Promise<{ samples: Sample[]; types: Map<string, string>; text: string }> {
  const r = await fetch(metricsUrl);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await r.text();
  return { ...parseExposition(text), text };
}

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.find((s) => s.name === name && JSON.stringify(s.labels) === JSON.stringify(labels))?.value;

before(async () => {
  t = await startFastNode({ metricsAddress: '127.0.0.1:0' });
  metricsUrl = `http://${t.node.metrics.listening}/metrics`;
  await waitUntil(() => t.node.chain.tip().height >= 3, 20_000, 'three blocks');
});
after(async () => {
  await t?.stop();
});

test('the scrape parses as Prometheus text, on its own port, with every metric of the catalog', async () => {
  assert.notEqual(t.node.metrics.listening, t.node.api.listening);
  // The API does not serve the metrics.
  assert.equal((await fetch(`${t.base}/metrics`)).status, 404);
  const { samples, types } = await scrape();
  for (const name of [...Object.keys(COUNTERS), ...Object.keys(EVENT_COUNTERS)])
    assert.equal(types.get(name), 'counter', name);
  for (const name of Object.keys(GAUGES)) assert.equal(types.get(name), 'gauge', name);
  for (const name of [...Object.keys(HISTOGRAMS), 'http_request_duration_seconds'])
    assert.equal(types.get(name), 'histogram', name);
  assert.ok(samples.some((s) => s.name === 'process_resident_memory_bytes'));
  // Another path and another method.
  const base = metricsUrl.replace('/metrics', '');
  assert.equal((await fetch(`${base}/other`)).status, 404);
  assert.equal((await fetch(metricsUrl, { method: 'POST' })).status, 405);
});

test('values equal what the API reports', async () => {
  // The chain moves on: read the API before and after the scrape; the scrape is between them.
  const info = async () =>
    (await (await fetch(`${t.base}/cryptarchia/info`)).json()) as {
      cryptarchia_info: { height: number; slot: number; lib_slot: number };
      phase: string;
    };
  const before = await info();
  const { samples } = await scrape();
  const afterInfo = await info();
  const height = value(samples, 'consensus_tip_height')!;
  assert.ok(height >= before.cryptarchia_info.height && height <= afterInfo.cryptarchia_info.height);
  const slot = value(samples, 'consensus_current_slot')!;
  assert.ok(slot >= before.cryptarchia_info.slot && slot <= afterInfo.cryptarchia_info.slot);
  assert.equal(value(samples, 'logos_bootstrap_phase', { phase: afterInfo.phase }), 1);
  assert.equal(
    samples.filter((s) => s.name === 'logos_bootstrap_phase' && s.value === 1).length,
    1,
    'one phase at a time',
  );
  const imported = value(samples, 'consensus_blocks_imported_total')!;
  assert.ok(imported >= height, `${imported} blocks imported for a tip at height ${height}`);
  const mp = (await (await fetch(`${t.base}/mantle/metrics`)).json()) as { pending_items: number };
  assert.equal(value(samples, 'mempool_transactions_pending'), mp.pending_items);
  const net = (await (await fetch(`${t.base}/network/info`)).json()) as { n_peers: number };
  assert.equal(value(samples, 'consensus_peers_connected'), net.n_peers);
  // The requests just made are counted under their route templates.
  const again = (await scrape()).samples;
  assert.ok(value(again, 'http_requests_total', { method: 'GET', endpoint: '/cryptarchia/info' })! >= 2);
});

test('counters only grow, and label sets stay bounded whatever paths clients ask for', async () => {
  const first = await scrape();
  const seriesBefore = new Set(first.samples.map(key));
  // Many distinct paths and ids: unknown paths and a route with a parameter.
  for (let i = 0; i < 40; i++) {
    await fetch(`${t.base}/no/such/path/${i}`);
    await fetch(`${t.base}/cryptarchia/blocks/${i.toString(16).padStart(64, '0')}`);
  }
  await waitUntil(() => t.node.chain.tip().height >= 5, 20_000, 'five blocks');
  const second = await scrape();
  const counters = new Set(
    [...first.types].filter(([, type]) => type === 'counter' || type === 'histogram').map(([n]) => n),
  );
  const previous = new Map(first.samples.map((s) => [key(s), s.value]));
  for (const s of second.samples) {
    const base = s.name.replace(/_(bucket|sum|count)$/, '');
    if (!counters.has(s.name) && !counters.has(base)) continue;
    const was = previous.get(key(s));
    if (was !== undefined) assert.ok(s.value >= was, `${key(s)} went down: ${was} → ${s.value}`);
  }
  const endpoints = new Set(
    second.samples.filter((s) => s.name === 'http_requests_total').map((s) => s.labels.endpoint),
  );
  assert.ok(endpoints.has('unmatched'));
  assert.ok(endpoints.has('/cryptarchia/blocks/{id}'));
  for (const e of endpoints) assert.ok(e === 'unmatched' || e!.startsWith('/'), e);
  assert.ok(endpoints.size < 20, `${endpoints.size} endpoints`);
  const grown = second.samples.map(key).filter((k) => !seriesBefore.has(k));
  assert.ok(grown.length < 60, `${grown.length} new series after 80 distinct requests`);
  // Each metric's labels are those of the catalog.
  const catalog = new Map<string, readonly string[]>();
  for (const [n, d] of Object.entries({ ...COUNTERS, ...EVENT_COUNTERS, ...GAUGES, ...HISTOGRAMS }))
    catalog.set(n, (d as { labels?: readonly string[] }).labels ?? []);
  for (const s of second.samples) {
    const name = catalog.has(s.name) ? s.name : s.name.replace(/_(bucket|sum|count)$/, '');
    const allowed = catalog.get(name);
    if (allowed === undefined) continue;
    for (const l of Object.keys(s.labels))
      assert.ok(allowed.includes(l) || l === 'le', `${s.name}: label ${l}`);
  }
});

test('the metrics section: absent, the default address; null, none; a bad address is named', () => {
  assert.deepEqual(parseMetricsSection(undefined), { listen_address: '127.0.0.1:9400', configured: false });
  assert.deepEqual(parseMetricsSection({ listen_address: null }), { listen_address: null, configured: true });
  assert.deepEqual(parseMetricsSection({ listen_address: '0.0.0.0:9500' }), {
    listen_address: '0.0.0.0:9500',
    configured: true,
  });
  assert.throws(() => parseMetricsSection({ listen_address: 'nowhere' }), /metrics\.listen_address/);
  assert.throws(() => parseMetricsSection({ listen_address: 9400 }), /metrics\.listen_address/);
  assert.throws(() => parseMetricsSection({ port: 1 }), /metrics/);
});

test('a configured address that is taken stops the node; the default one taken leaves it without metrics', async () => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
  const port = (blocker.address() as { port: number }).port;
  const logger = pino({ level: 'silent' });
  try {
    await assert.rejects(
      MetricsService.init({ listen_address: `127.0.0.1:${port}`, configured: true }, { logger }),
      (e: unknown) => e instanceof ConfigError && /metrics\.listen_address.*already in use/.test(e.message),
    );
    const lines: string[] = [];
    const spy = pino({ level: 'warn' }, { write: (l: string) => lines.push(l) });
    const off = await MetricsService.init(
      { listen_address: `127.0.0.1:${port}`, configured: false },
      { logger: spy },
    );
    assert.equal(off.listening, undefined);
    assert.ok(lines.some((l) => l.includes('metrics not served')));
    await off.close();
  } finally {
    blocker.close();
  }
});
