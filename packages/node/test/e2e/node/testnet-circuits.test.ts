/**
 * `start --deployment testnet`: the reference's public testnet, whose proofs are made with the reference's
 * circuit keys. Without a circuits folder the node says it cannot verify this network's proofs and stops
 * before it opens its storage; with one (`--circuits`, here in the reference's layout with the reference's
 * PoL verification key and every circuit verify-only) it starts as a validating follower, says which roles
 * are off, and serves its read endpoints.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { testCircuitFolder } from '../../utils/circuit-folders.ts';
import { devnetConfigYaml, spawnCli } from '../../utils/cli-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'testnet-'));
const cfg = join(dir, 'user_config.yaml');
writeFileSync(cfg, devnetConfigYaml({ baseFolder: './state' }), { mode: 0o600 });
const folder = testCircuitFolder({ referencePol: true, verifyOnly: ['zksig', 'poc', 'poq'] });
delete process.env.LBC_ROOT_DIR;
let proc: ChildProcess | undefined;

after(() => {
  proc?.kill('SIGKILL');
  folder.remove();
  rmSync(dir, { recursive: true, force: true });
});

/** Collects the process's output until it exits or `until` matches it. */
function run(args: string[], until?: RegExp): Promise<{ out: string; code: number | null }> {
  const p = spawnCli(args, dir);
  proc = p;
  let out = '';
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve({ out, code: null }), 60_000);
    const on = (b: Buffer) => {
      out += b.toString();
      if (until?.test(out)) {
        clearTimeout(t);
        resolve({ out, code: null });
      }
    };
    p.stdout!.on('data', on);
    p.stderr!.on('data', on);
    p.on('exit', (code) => {
      clearTimeout(t);
      resolve({ out, code });
    });
  });
}

test('without the reference circuits the testnet node says why and stops before its storage', async () => {
  const r = await run(['start', '--deployment', 'testnet', '--config', cfg, '--log-format', 'json']);
  assert.notEqual(r.code, 0);
  assert.notEqual(r.code, null, 'it stopped');
  assert.match(r.out, /cannot verify this network's proofs with its own circuits/);
  assert.match(r.out, /--circuits, proofs\.circuits or LBC_ROOT_DIR/);
  assert.equal(existsSync(join(dir, 'state')), false, 'no storage was created');
});

test('with a reference-layout folder it starts as a follower with its roles off and serves reads', async () => {
  const r = await run(
    ['start', '--deployment', 'testnet', '--config', cfg, '--circuits', folder.dir, '--log-format', 'json'],
    /"msg":"HTTP API listening"[^\n]*\n/,
  );
  const logs = r.out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string; circuit?: string; address?: string });
  assert.deepEqual(
    logs
      .filter((l) => l.msg.startsWith('role off: '))
      .map((l) => l.circuit)
      .sort(),
    ['poc', 'pol', 'poq', 'zksig'],
    r.out.slice(-3000),
  );
  assert.ok(logs.some((l) => /validating follower/.test(l.msg)));
  const listening = logs.find((l) => l.address !== undefined && /listen/i.test(l.msg));
  assert.ok(listening, r.out.slice(-3000));
  const res = await fetch(`http://${listening.address}/cryptarchia/info`);
  assert.equal(res.status, 200);
  const info = (await res.json()) as { cryptarchia_info: { height: number } };
  assert.equal(info.cryptarchia_info.height, 0);
});
