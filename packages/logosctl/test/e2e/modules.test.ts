/**
 * `logosctl` module management end to end (operator.md §1.3, §1.6): `module load` brings dependencies
 * (transitively), `module unload` takes dependents with it, `module ls --loaded`, `watch` prints module
 * events, the socket refuses a request without the session's token, and a crashed module is restarted
 * with backoff (`restart_policy.max_restarts`, `restart_policy.backoff_ms`). The daemon is always stopped.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ctl, watch } from '@logos-ts/test-utils/logosctl';
import { dial, request, writeLine } from '../../src/rpc.ts';
import { ECHO_MODULE } from '../utils/fixtures.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('logosctl modules', () => {
  const dir = mkdtempSync(join(tmpdir(), 'logosctl-mod-'));
  const install = (name: string, dependencies: string[]): void => {
    mkdirSync(join(dir, 'modules', name), { recursive: true });
    writeFileSync(
      join(dir, 'modules', name, 'manifest.json'),
      JSON.stringify({ name, version: '0.0.1', main: ECHO_MODULE, dependencies }),
    );
  };
  install('base_module', []);
  install('mid_module', ['base_module']);
  install('top_module', ['mid_module']);
  install('loop_a', ['loop_b']);
  install('loop_b', ['loop_a']);
  mkdirSync(join(dir, 'daemon'), { recursive: true });
  // a module folder of modules_dirs:, relative to the daemon's working directory (the session folder here)
  mkdirSync(join(dir, 'extra', 'extra_module'), { recursive: true });
  writeFileSync(
    join(dir, 'extra', 'extra_module', 'manifest.json'),
    JSON.stringify({ name: 'extra_module', version: '9.9.9', main: ECHO_MODULE }),
  );
  writeFileSync(
    join(dir, 'daemon', 'config.yaml'),
    'restart_policy:\n  max_restarts: 2\n  backoff_ms: 300\nmodules_dirs: [extra]\n',
  );

  before(async () => {
    const r = await ctl(dir, ['daemon', 'start', '--detach']);
    assert.equal(r.code, 0, r.stderr);
  });
  after(async () => {
    await ctl(dir, ['daemon', 'stop']);
    rmSync(dir, { recursive: true, force: true });
  });

  test('load resolves dependencies transitively (modules_dirs: too); unload takes dependents; unknown and cyclic fail with exit 3', async () => {
    const load = await ctl(dir, ['module', 'load', 'top_module']);
    assert.equal(
      load.stdout,
      '{"dependencies_loaded":["base_module","mid_module"],"module":"top_module","status":"ok","version":"0.0.1"}\n',
    );
    const human = await ctl(dir, ['--human', 'module', 'load', 'top_module']);
    assert.equal(human.stdout, 'Loaded module: top_module (v0.0.1)\n');
    const loaded = JSON.parse((await ctl(dir, ['module', 'ls', '--loaded'])).stdout).map(
      (m: { name: string }) => m.name,
    );
    assert.deepEqual(loaded.sort(), [
      'base_module',
      'capability_module',
      'mid_module',
      'package_downloader',
      'package_manager',
      'top_module',
    ]);
    const stats = JSON.parse((await ctl(dir, ['stats'])).stdout) as {
      name: string;
      pid: number;
      cpu_percent: number;
      memory_mb: number;
    }[];
    const top = stats.find((x) => x.name === 'top_module');
    assert.ok(top && top.pid > 0 && top.cpu_percent >= 0 && top.memory_mb > 1, JSON.stringify(stats));
    assert.equal(stats.length, loaded.length, 'one line per loaded module');
    const refused = await ctl(dir, ['module', 'unload', 'base_module', '--no-dependents']);
    assert.equal(refused.code, 3);
    const unload = await ctl(dir, ['module', 'unload', 'base_module']);
    assert.equal(
      unload.stdout,
      '{"dependents_unloaded":["top_module","mid_module"],"module":"base_module","status":"ok"}\n',
    );
    const unknown = await ctl(dir, ['module', 'load', 'nothing_here']);
    assert.equal(unknown.code, 3);
    assert.equal(JSON.parse(unknown.stdout).code, 'MODULE_LOAD_FAILED');
    assert.ok(JSON.parse(unknown.stdout).known_modules.includes('top_module'));
    const cycle = await ctl(dir, ['module', 'load', 'loop_a']);
    assert.equal(cycle.code, 3);
    assert.match(JSON.parse(cycle.stdout).message, /cycle/);
    const extra = await ctl(dir, ['module', 'load', 'extra_module']);
    assert.equal(JSON.parse(extra.stdout).version, '9.9.9', extra.stdout);
    const pm = JSON.parse((await ctl(dir, ['call', 'package_manager', 'listInstalledPackages'])).stdout);
    assert.equal(pm.result.value.length, 5);
  });

  test('reload restarts a module and the modules depending on it', async () => {
    assert.equal((await ctl(dir, ['module', 'load', 'top_module'])).code, 0);
    const pid = (name: string): Promise<number> =>
      ctl(dir, ['module', 'show', name]).then((r) => (JSON.parse(r.stdout) as { pid: number }).pid);
    const before = await pid('base_module');
    const r = JSON.parse((await ctl(dir, ['module', 'reload', 'base_module'])).stdout);
    assert.deepEqual(r.dependents_reloaded, ['top_module', 'mid_module']);
    assert.notEqual(await pid('base_module'), before);
    const loaded = JSON.parse((await ctl(dir, ['module', 'ls', '--loaded'])).stdout).map(
      (m: { name: string }) => m.name,
    );
    assert.ok(loaded.includes('top_module') && loaded.includes('mid_module'));
    assert.equal((await ctl(dir, ['module', 'unload', 'base_module'])).code, 0);
  });

  test('watch prints the module events, one JSON line each', async () => {
    assert.equal((await ctl(dir, ['module', 'load', 'base_module'])).code, 0);
    const w = watch(dir, 'base_module', 'fired');
    try {
      for (let i = 0; i < 50 && w.lines.length === 0; i++) {
        await ctl(dir, ['call', 'base_module', 'fire', 'json:{"n":1}']);
        await sleep(100);
      }
      assert.match(
        w.lines[0]!,
        /^\{"data":\{"arg0":\{"n":1\}\},"event":"fired","module":"base_module","timestamp":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\}$/,
      );
    } finally {
      assert.equal(await w.stop(), 0);
    }
  });

  test('a watcher that stops reading is dropped once its backlog passes the cap; the daemon carries on', async () => {
    assert.equal((await ctl(dir, ['module', 'load', 'base_module'])).code, 0);
    const sock = join(dir, 'daemon', 'daemon.sock');
    const token = (JSON.parse(readFileSync(join(dir, 'client', 'auto.json'), 'utf8')) as { token: string })
      .token;
    const w = await dial(sock);
    writeLine(w, { token, cmd: 'watch', params: { module: 'base_module', event: 'fired' } });
    // never read: no 'data' listener, so only the socket buffers fill
    const big = 'x'.repeat(1024 * 1024);
    try {
      let dropped = false;
      for (let i = 0; i < 40 && !dropped; i++) {
        const r = (await request(sock, {
          token,
          cmd: 'call',
          params: { module: 'base_module', method: 'fire', args: [big] },
        })) as { status: string };
        assert.equal(r.status, 'ok');
        if (i >= 8)
          dropped = readFileSync(join(dir, 'logs', 'daemon.log'), 'utf8').includes('watcher not reading');
      }
      assert.ok(dropped, 'the daemon dropped the stalled watcher');
      const st = (await request(sock, { token, cmd: 'status', params: {} })) as {
        daemon: { status: string };
      };
      assert.equal(st.daemon.status, 'running');
    } finally {
      w.destroy();
    }
  });

  test('the socket refuses a request without the token', async () => {
    const r = await request(join(dir, 'daemon', 'daemon.sock'), {
      token: 'wrong',
      cmd: 'status',
      params: {},
    });
    assert.deepEqual(r, { code: 'UNAUTHORIZED', message: 'Invalid or missing token.', status: 'error' });
  });

  test('a crashed module is restarted with backoff, counting restarts', async () => {
    assert.equal((await ctl(dir, ['call', 'base_module', 'die'])).code, 4);
    let entry: { status: string; restart_count?: number } | undefined;
    for (let i = 0; i < 100; i++) {
      const st = JSON.parse((await ctl(dir, ['status'])).stdout);
      entry = st.modules.find((m: { name: string }) => m.name === 'base_module');
      if (entry?.status === 'loaded') break;
      await sleep(100);
    }
    assert.equal(entry?.status, 'loaded');
    assert.equal(entry?.restart_count, 1);
    assert.equal((await ctl(dir, ['call', 'base_module', 'flag'])).code, 0);
  });
});
