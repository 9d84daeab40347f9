/**
 * How a `logosctl` daemon ends (operator.md §1.1, §5.3): SIGTERM (systemd's stop) unloads the modules and
 * removes `state.json` and the socket; a daemon killed outright takes its module processes with it (their
 * IPC channel closes), clients then get exit 2, and a new daemon starts over the stale state.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ctl } from '@logos-ts/test-utils/logosctl';
import { processAlive } from '../../src/session.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) {
    await ctl(d, ['daemon', 'stop']);
    rmSync(d, { recursive: true, force: true });
  }
});

async function started(): Promise<{ dir: string; pid: number; modulePid: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'logosctl-end-'));
  dirs.push(dir);
  const r = await ctl(dir, ['daemon', 'start', '--detach']);
  assert.equal(r.code, 0, r.stderr);
  const pid = (JSON.parse(readFileSync(join(dir, 'daemon', 'state.json'), 'utf8')) as { pid: number }).pid;
  const show = JSON.parse((await ctl(dir, ['module', 'show', 'capability_module'])).stdout) as {
    pid: number;
  };
  assert.ok(processAlive(show.pid));
  return { dir, pid, modulePid: show.pid };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !cond(); i++) await sleep(100);
  assert.ok(cond(), what);
}

test('SIGTERM: modules unloaded, state.json and socket removed', async () => {
  const { dir, pid, modulePid } = await started();
  process.kill(pid, 'SIGTERM');
  await until(() => !processAlive(pid), 'the daemon ends');
  assert.equal(existsSync(join(dir, 'daemon', 'state.json')), false);
  assert.equal(existsSync(join(dir, 'daemon', 'daemon.sock')), false);
  assert.equal(processAlive(modulePid), false);
  assert.match(readFileSync(join(dir, 'logs', 'daemon.log'), 'utf8'), /"msg":"daemon stopped"/);
});

test('SIGKILL: module processes follow, clients get exit 2, a new daemon starts', async () => {
  const { dir, pid, modulePid } = await started();
  process.kill(pid, 'SIGKILL');
  await until(() => !processAlive(modulePid), 'the module process ends with its daemon');
  const call = await ctl(dir, ['call', 'capability_module', 'capabilities']);
  assert.equal(call.code, 2);
  assert.equal(JSON.parse(call.stdout).code, 'NO_DAEMON');
  const again = await ctl(dir, ['daemon', 'start', '--detach']);
  assert.equal(again.code, 0, again.stderr);
  assert.equal((await ctl(dir, ['call', 'capability_module', 'capabilities'])).code, 0);
});
