/**
 * A key added to a running node's files (`logos-node keys add`, FAST devnet node in-process): the
 * command asks the node to reload, the wallet knows the key from then on, and a transfer to it is
 * seen in its balance once a block includes it; the node never restarts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseJson } from '@logos-ts/shared/json';
import { createClient } from '../../../client/index.ts';
import { transfer, waitForInclusion } from '../../../client/wallet.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { frToBytes } from '../../../src/crypto/field.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { fundedDevnetKeys } from '../../../src/node/devnet.ts';
import { readConfigFile } from '../../../src/node/load.ts';
import { runCli } from '../../unit/cli/cmds/run-cli.ts';
import { startFastNode, waitUntil } from '../../utils/api-node.ts';
import { devnetConfigYaml } from '../../utils/cli-process.ts';

test('keys add on a running node: reloaded at once, a transfer to the new key is in its balance after the next block', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-key-reload-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const cfg = join(dir, 'user_config.yaml');
  writeFileSync(cfg, devnetConfigYaml(), { mode: 0o600 });
  writeFileSync(join(dir, 'keystore.yaml'), 'public_keys: {}\nsecret_keys: {}\n', { mode: 0o600 });
  const secret = '05'.repeat(32);
  writeFileSync(join(dir, 'new.hex'), secret, { mode: 0o600 });
  const pk = bytesToHex(frToBytes(zkPublicKey(BigInt(`0x${secret}`))));

  const tn = await startFastNode({ config: readConfigFile(cfg), configFile: cfg });
  t.after(() => tn.stop());
  await waitUntil(() => tn.node.chain.tip().height >= 1, 20_000, 'a first block');
  const balance = () => fetch(`${tn.base}/wallet/${pk}/balance`);
  assert.equal((await balance()).status, 404);

  const out = await runCli([
    'keys',
    'add',
    '-c',
    cfg,
    '--type',
    'zk',
    '--title',
    'New',
    '--secret-file',
    join(dir, 'new.hex'),
    '--node-address',
    tn.base,
  ]);
  assert.deepEqual(out[0], `added New: ${pk}`);
  assert.match(
    out[1]!,
    /^the running node reloaded its keys: key store \+1 -0, wallet \+1 -0, leader keys \d+$/,
  );
  assert.ok(!out.join('\n').includes(secret));

  // Asked again: nothing left to change.
  const again = await fetch(`${tn.base}/x/admin/keys/reload`, { method: 'POST' });
  assert.equal(again.status, 200);
  assert.deepEqual(JSON.parse(await again.text()), {
    kms: { added: [], removed: [], changed: [] },
    wallet: { added: [], removed: [] },
    leader_keys: JSON.parse(out[1]!.replace(/.* leader keys /, '')),
  });

  const node = createClient({ baseUrl: tn.base });
  const hash = await transfer(node, { from: fundedDevnetKeys()[0]!.publicKey, to: pk, amount: 7n });
  await waitForInclusion(node, hash, { timeoutMs: 20_000, intervalMs: 50 });
  let body = '';
  await waitUntil(
    async () => {
      const r = await balance();
      body = await r.text();
      return r.status === 200;
    },
    10_000,
    'the new key in the wallet',
  );
  const b = parseJson(body) as { balance: bigint | number; address: string };
  assert.equal(BigInt(b.balance), 7n);
  assert.equal(b.address, pk);
});
