/**
 * The reference's cucumber feature tests/cucumber_tests/features/api-cli.feature: one node of a
 * `devnet` folder (test/utils/cucumber-devnet.ts, fast test deployment, insecure test proofs) declared
 * as a Blend core node through the command line, `sdp post-blend-declaration` (F: the
 * `logos-blockchain-tools-api` binary's command of that name), then the declaration found on the chain.
 *
 * F's "genesis block has the following wallet resources" table is `--genesis-account` (a devnet key
 * per account with its notes, in NODE_1's wallet).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { spawnCli } from '../../utils/cli-process.ts';
import {
  blendDeclarationIncluded,
  blendFundedNote,
  blendKeys,
  CucumberDevnet,
  sendToBlendZk,
} from '../../utils/cucumber-devnet.ts';

let c: CucumberDevnet | undefined;
after(async () => {
  await c?.close();
});

/** Runs the node's command line to its end: exit code and output. */
function runCli(args: string[], cwd: string): Promise<{ code: number | null; out: string }> {
  const p = spawnCli(args, cwd);
  let out = '';
  p.stdout!.on('data', (b: Buffer) => {
    out += b.toString();
  });
  p.stderr!.on('data', (b: Buffer) => {
    out += b.toString();
  });
  return new Promise((resolve) => p.on('close', (code) => resolve({ code, out })));
}

test('Join Blend via CLI declaration', async () => {
  // The genesis block has account 1 with one note of 2000, NODE_1's wallet WALLET_1A.
  c = await CucumberDevnet.create({ capacity: 1, accounts: ['0:1x2000'] });
  await c.start('NODE_1');
  await c.converged(2, 1, 180_000);
  await sendToBlendZk(c, 'NODE_1', c.accountKey(0), 'NODE_1', 1, 1000);
  const { locator } = blendKeys(c, 'NODE_1');
  const note = await blendFundedNote(c, 'NODE_1');
  const args = [
    'sdp',
    'post-blend-declaration',
    '--user-config-path',
    join(c.nodeDir('NODE_1'), 'user_config.yaml'),
    '--blend-addr',
    locator,
    '--node-address',
    c.node('NODE_1').api,
  ];
  // A note that is not the Blend key's is refused before anything is posted.
  const refused = await runCli([...args, '--locked-note-id', 'ab'.repeat(32)], c.tmp);
  assert.equal(refused.code, 1, refused.out);
  assert.match(refused.out, /was not found in wallet notes for provided Blend ZK ID/);
  const ran = await runCli([...args, '--locked-note-id', note], c.tmp);
  assert.equal(ran.code, 0, ran.out);
  assert.match(ran.out, /Declaration posted successfully: [0-9a-f]{64}/);
  await blendDeclarationIncluded(c, 'NODE_1', 'NODE_1');
  await c.stopAll();
});
