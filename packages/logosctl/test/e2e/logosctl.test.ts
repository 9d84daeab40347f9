/**
 * `logosctl` end to end (operator.md §1.2-§1.6): a daemon started with `--detach` on a temporary session,
 * its status, a second start refused, the token files' modes, calls to a test module
 * (`test/fixtures/echo-module.ts`) with the reference's argument typing and envelope bytes, the
 * exit codes 0/1/2/3/4, a module process that dies reported `crashed` while the daemon keeps answering,
 * and `--json`/`--human`. The daemon is always stopped.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ctl } from '@logos-ts/test-utils/logosctl';
import { ECHO_MODULE } from '../utils/fixtures.ts';

function session(config?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'logosctl-'));
  const mod = join(dir, 'modules', 'echo_module');
  mkdirSync(mod, { recursive: true });
  writeFileSync(
    join(mod, 'manifest.json'),
    JSON.stringify({ name: 'echo_module', version: '1.2.3', main: ECHO_MODULE }),
  );
  if (config !== undefined) {
    mkdirSync(join(dir, 'daemon'), { recursive: true });
    writeFileSync(join(dir, 'daemon', 'config.yaml'), config);
  }
  return dir;
}

describe('logosctl daemon', () => {
  const dir = session();
  after(async () => {
    await ctl(dir, ['daemon', 'stop']);
    rmSync(dir, { recursive: true, force: true });
  });

  test('start --detach, status, second start refused, token modes, stop', async () => {
    const none = await ctl(dir, ['daemon', 'status']);
    assert.equal(none.code, 1);
    assert.equal(JSON.parse(none.stdout).daemon.status, 'not_running');

    const call = await ctl(dir, ['call', 'echo_module', 'echo']);
    assert.equal(call.code, 2, 'no daemon: exit 2');
    assert.equal(JSON.parse(call.stdout).code, 'NO_DAEMON');

    const start = await ctl(dir, ['--human', 'daemon', 'start', '--detach']);
    assert.equal(start.code, 0, start.stderr);
    assert.match(start.stdout, /^Daemon started \(pid \d+\)/);

    const st = await ctl(dir, ['daemon', 'status', '--json']);
    assert.equal(st.code, 0);
    const s = JSON.parse(st.stdout);
    assert.equal(s.daemon.status, 'running');
    assert.deepEqual(
      s.modules.filter((m: { status: string }) => m.status === 'loaded').map((m: { name: string }) => m.name),
      ['capability_module', 'package_manager', 'package_downloader'],
    );
    // the known modules that are not loaded: the session's echo_module (and any shipped module)
    const notLoaded = s.modules.filter((m: { status: string }) => m.status === 'not_loaded').length;
    assert.ok(
      s.modules.some(
        (m: { name: string; status: string }) => m.name === 'echo_module' && m.status === 'not_loaded',
      ),
    );
    assert.deepEqual(s.modules_summary, { crashed: 0, loaded: 3, not_loaded: notLoaded });

    const human = await ctl(dir, ['--human', 'status']);
    assert.match(human.stdout, /^Logosctl Daemon\n {2}Status: {7}running\n {2}PID: {10}\d+\n/);
    assert.ok(human.stdout.includes(`Modules: 3 loaded, 0 crashed, ${notLoaded} not loaded\n`));

    const ls = await ctl(dir, ['--human', 'module', 'ls']);
    assert.match(
      ls.stdout,
      /^NAME {16}VERSION {2}STATUS {6}UPTIME\ncapability_module {3}v0\.1\.0 {3}loaded {6}\d+s\n/,
    );
    assert.match(ls.stdout, /\necho_module {9}v1\.2\.3 {3}not_loaded {2}-\n$/);
    assert.equal((await ctl(dir, ['-q', '--human', 'module', 'load', 'capability_module'])).stdout, '');
    assert.match((await ctl(dir, ['--version'])).stdout, /^logosctl version 0\.2\.3\ncommit: \S+\n$/);

    const second = await ctl(dir, ['daemon', 'start', '--detach']);
    assert.equal(second.code, 1);
    assert.match(second.stdout, /already running/);
    const foreground = await ctl(dir, ['daemon', 'start']);
    assert.equal(foreground.code, 1);
    assert.match(foreground.stdout, /already running/);
    assert.equal((await ctl(dir, ['status'])).code, 0, 'the first daemon still answers');

    for (const f of ['client/auto.json', 'daemon/tokens.json', 'daemon/state.json'])
      assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
    for (const d of ['', 'daemon', 'client', 'modules', 'logs', 'data'])
      assert.equal(statSync(join(dir, d)).mode & 0o777, 0o700, d || 'session');

    const stop = await ctl(dir, ['daemon', 'stop']);
    assert.equal(stop.code, 0);
    assert.throws(() => statSync(join(dir, 'daemon', 'state.json')));
    assert.equal((await ctl(dir, ['daemon', 'status'])).code, 1);
  });
});

describe('logosctl call', () => {
  // no restarts: a crashed module stays crashed for the assertions
  const dir = session('restart_policy:\n  max_restarts: 0\n');
  before(async () => {
    const r = await ctl(dir, ['daemon', 'start', '-D']);
    assert.equal(r.code, 0, r.stderr);
  });
  after(async () => {
    await ctl(dir, ['daemon', 'stop']);
    rmSync(dir, { recursive: true, force: true });
  });

  test('a module not loaded: MODULE_NOT_LOADED, exit 3 (human: Error on stderr)', async () => {
    const r = await ctl(dir, ['call', 'echo_module', 'echo', 'x']);
    assert.equal(r.code, 3);
    assert.equal(
      r.stdout,
      `{"code":"MODULE_NOT_LOADED","message":"Module 'echo_module' is not loaded. Load it with: logosctl module load echo_module","status":"error"}\n`,
    );
    const h = await ctl(dir, ['--no-json', 'call', 'echo_module', 'echo']);
    assert.equal(h.code, 3);
    assert.equal(h.stdout, '');
    assert.equal(
      h.stderr,
      "Error: Module 'echo_module' is not loaded. Load it with: logosctl module load echo_module\n",
    );
  });

  test('load, then typed arguments come back in the exact envelope', async () => {
    const load = await ctl(dir, ['module', 'load', 'echo_module']);
    assert.equal(
      load.stdout,
      '{"dependencies_loaded":[],"module":"echo_module","status":"ok","version":"1.2.3"}\n',
    );
    writeFileSync(join(dir, 'peers.json'), '{"initial_peers":["/ip4/1.2.3.4"]}');
    writeFileSync(join(dir, 'n.txt'), '123\n');
    const r = await ctl(dir, [
      'call',
      'echo_module',
      'echo',
      '',
      '65536',
      'false',
      '-5',
      '1.5',
      '1e5',
      '2147483648',
      '18446744073709551615',
      ' 7 ',
      '0x10',
      'str:42',
      'json:{"b":[1,2.0],"a":null}',
      '@peers.json',
      '@n.txt',
      '12abc',
    ]);
    assert.equal(r.code, 0, r.stdout);
    assert.equal(
      r.stdout,
      '{"method":"echo","module":"echo_module","result":{"error":null,"success":true,"value":' +
        '["",65536,false,-5,1.5,100000.0,2147483648,18446744073709551615,7,16.0,' +
        '"42",{"a":null,"b":[1,2.0]},"{\\"initial_peers\\":[\\"/ip4/1.2.3.4\\"]}",123,"12abc"]},"status":"ok"}\n',
    );
  });

  test('module results: failed StdLogosResult exits 0; plain bool; human printing', async () => {
    const f = await ctl(dir, ['call', 'echo_module', 'fail']);
    assert.equal(f.code, 0);
    assert.equal(
      f.stdout,
      '{"method":"fail","module":"echo_module","result":{"error":"it failed","success":false,"value":null},"status":"ok"}\n',
    );
    const b = await ctl(dir, ['--json', 'call', 'echo_module', 'flag']);
    assert.equal(b.stdout, '{"method":"flag","module":"echo_module","result":true,"status":"ok"}\n');
    assert.equal((await ctl(dir, ['--human', 'call', 'echo_module', 'flag'])).stdout, 'true\n');
    const cwd = await ctl(dir, ['--human', 'call', 'echo_module', 'cwd']);
    assert.ok(cwd.stdout.endsWith('\n') && !cwd.stdout.startsWith('"'), 'a string result prints raw');
    const obj = await ctl(dir, ['--human', 'call', 'echo_module', 'echo', 'a']);
    assert.equal(obj.stdout, '{\n  "error": null,\n  "success": true,\n  "value": [\n    "a"\n  ]\n}\n');
  });

  test('unknown method, nothing returned, a throw: METHOD_FAILED exit 4; missing @file: exit 1', async () => {
    for (const m of ['nope', 'nothing', 'boom']) {
      const r = await ctl(dir, ['call', 'echo_module', m]);
      assert.equal(r.code, 4, m);
      assert.equal(
        r.stdout,
        `{"code":"METHOD_FAILED","message":"Call to echo_module.${m} failed.","status":"error"}\n`,
      );
    }
    const missing = await ctl(dir, ['call', 'echo_module', 'echo', '@no-such-file.json']);
    assert.equal(missing.code, 1);
    assert.equal(
      missing.stdout,
      '{"code":"INVALID_ARGS","message":"Failed to read file: no-such-file.json","status":"error"}\n',
    );
    const badJson = await ctl(dir, ['call', 'echo_module', 'echo', 'json:{']);
    assert.equal(badJson.code, 1);
    assert.match(JSON.parse(badJson.stdout).message, /^Invalid JSON in argument 'json:\{'/);
  });

  test('no reply within the call deadline: RPC_FAILED, exit 4; the daemon still answers', async () => {
    const r = await ctl(dir, ['call', 'echo_module', 'sleep', '3000'], dir, {
      LOGOSCTL_CALL_TIMEOUT_MS: '300',
    });
    assert.equal(r.code, 4);
    assert.equal(
      r.stdout,
      `{"code":"RPC_FAILED","message":"callModuleMethod('echo_module','sleep') RPC call failed.","status":"error"}\n`,
    );
    assert.equal((await ctl(dir, ['call', 'echo_module', 'sleep', '10'])).code, 0);
  });

  test('a module process that dies is reported crashed; the daemon answers afterwards', async () => {
    const r = await ctl(dir, ['call', 'echo_module', 'die']);
    assert.equal(r.code, 4);
    const st = JSON.parse((await ctl(dir, ['status'])).stdout);
    const echo = st.modules.find((m: { name: string }) => m.name === 'echo_module');
    assert.deepEqual(echo, { name: 'echo_module', restart_count: 1, status: 'crashed', version: '1.2.3' });
    assert.equal(st.modules_summary.crashed, 1);
    const again = await ctl(dir, ['call', 'echo_module', 'echo']);
    assert.equal(again.code, 3, 'a crashed module is not loaded');
    const cap = await ctl(dir, ['call', 'capability_module', 'requestModule', 'echo_module']);
    assert.equal(cap.code, 0);
    const show = JSON.parse((await ctl(dir, ['module', 'show', 'echo_module'])).stdout);
    assert.match(show.crash, /exited with code 7/);
    const reload = await ctl(dir, ['module', 'load', 'echo_module']);
    assert.equal(reload.code, 0);
    assert.equal((await ctl(dir, ['call', 'echo_module', 'flag'])).code, 0);
  });
});
