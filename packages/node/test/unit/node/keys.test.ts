/**
 * The node's keys read again from its config while running (src/node/keys.ts): the key store gains,
 * loses and replaces keys, the wallet drops a key it no longer knows and tracks a new one from the
 * next block (not its earlier notes), the leader gets the ZK keys the wallet knows; what changed is
 * logged by id, never with a secret; a config that is not private, a malformed key or no config file
 * at all changes nothing.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError } from '@logos-ts/shared/config-fields';
import { PrivateFileError } from '@logos-ts/shared/private-file';
import { pino } from 'pino';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { ed25519PublicKey } from '../../../src/crypto/ed25519.ts';
import { type Fr, frToBytes } from '../../../src/crypto/field.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { KeyStore, zkKeyId } from '../../../src/kms/index.ts';
import { NodeError } from '../../../src/node/errors.ts';
import { reloadKeys } from '../../../src/node/keys.ts';
import { WalletStore } from '../../../src/storage/wallet-store.ts';
import { Wallet } from '../../../src/wallet/index.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { FakeMempool } from '../../mocks/mempool.ts';
import { A, alice, B, bob, ledger, notes, rec, startWallet, WalletChain } from '../../mocks/wallet-chain.ts';

const dir = mkdtempSync(join(tmpdir(), 'logos-keys-reload-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const hexOf = (x: Fr) => bytesToHex(frToBytes(x));
const carol = { secretKey: 777n, publicKey: zkPublicKey(777n) };
const C = carol.publicKey;
const edSecret = '07'.repeat(32);
const edId = bytesToHex(ed25519PublicKey(new Uint8Array(32).fill(7)));

/** A config file (mode 600) with these key store entries and known keys. */
function configFile(name: string, keys: Record<string, string>, known: Record<string, string>): string {
  const path = join(dir, name);
  const lines = [
    'kms:',
    '  backend:',
    '    keys:',
    ...Object.entries(keys).map(([id, k]) => `      '${id}': ${k}`),
    'wallet:',
    '  known_keys:',
    ...Object.entries(known).map(([id, pk]) => `    '${id}': '${pk}'`),
    '',
  ];
  writeFileSync(path, lines.join('\n'), { mode: 0o600 });
  return path;
}
const zk = (k: { secretKey: Fr }) => `!Zk '${hexOf(k.secretKey)}'`;

async function setUp() {
  const kms = KeyStore.init(
    {
      backend: {
        keys: {
          [zkKeyId(A)]: { kind: 'Zk', secret: hexOf(alice.secretKey) },
          [zkKeyId(B)]: { kind: 'Zk', secret: hexOf(bob.secretKey) },
          'blend/1': { kind: 'Ed25519', secret: '05'.repeat(32) },
        },
      },
    },
    { proofs: INSECURE_TEST_PROOFS },
  );
  // Carol already holds a note before the reload: the wallet does not look back for it.
  const g = notes([
    [1n, rec(5000, A)],
    [2n, rec(300, B)],
    [3n, rec(40, C)],
  ]);
  const chain = new WalletChain(ledger(g));
  const { wallet, kv } = await startWallet(chain, undefined, undefined, 4, kms);
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
  const leader = {
    keys: undefined as readonly Fr[] | undefined,
    setKeys(k: readonly Fr[]) {
      leader.keys = k;
    },
  };
  return { kms, chain, g, wallet, kv, lines, logger, leader };
}

test('a reload: the key store, the wallet and the leader take the config keys; logged by id, never a secret', async () => {
  const t = await setUp();
  assert.equal(t.wallet.balance(B)?.balance, 300n);
  const file = configFile(
    'new.yaml',
    {
      [zkKeyId(A)]: zk(alice),
      [zkKeyId(C)]: zk(carol),
      [edId]: `!Ed25519 '${edSecret}'`,
      'blend/1': `!Ed25519 '${'06'.repeat(32)}'`,
    },
    { [zkKeyId(A)]: hexOf(A), [zkKeyId(C)]: hexOf(C) },
  );
  const r = reloadKeys(file, { ...t, proofs: INSECURE_TEST_PROOFS });
  r.kms.added.sort();
  assert.deepEqual(r, {
    kms: { added: [zkKeyId(C), edId].sort(), removed: [zkKeyId(B)], changed: ['blend/1'] },
    wallet: { added: [hexOf(C)], removed: [hexOf(B)] },
    leader_keys: 2,
  });
  // The key store signs with the new keys only.
  assert.equal(t.kms.hasZk(C), true);
  assert.equal(t.kms.hasZk(B), false);
  assert.equal(t.kms.hasEd25519(ed25519PublicKey(new Uint8Array(32).fill(7))), true);
  assert.deepEqual(t.leader.keys, [alice.secretKey, carol.secretKey]);
  // The wallet: B is gone at once; C's note from before the reload is not looked for, its next one counts.
  assert.equal(t.wallet.balance(B), undefined);
  assert.equal(t.wallet.balance(C), undefined);
  t.chain.add(1, 0, t.g.set(4n, rec(25, C)).set(5n, rec(9, B)));
  assert.equal(t.wallet.balance(C)?.balance, 25n);
  assert.equal(t.wallet.balance(B), undefined);
  assert.equal(t.wallet.balance(A)?.balance, 5000n);
  // Logged by key id; no secret in any line.
  const log = t.lines.join('\n');
  assert.match(log, /keys reloaded from the config/);
  assert.ok(log.includes(zkKeyId(C)) && log.includes(edId));
  for (const s of [hexOf(carol.secretKey), hexOf(alice.secretKey), edSecret, '06'.repeat(32)])
    assert.ok(!log.includes(s), 'a secret was logged');
  // The notes persisted at the next LIB lack C's earlier note: a restart tracking A and C reads them
  // all from the LIB's ledger state instead (40 + 25), not from the persisted notes (25).
  t.chain.setLib(1);
  await t.wallet.close();
  const restarted = await Wallet.init(
    { known_keys: { a: hexOf(A), c: hexOf(C) }, voucher_master_key_id: null, pending_note_expiry_blocks: 4 },
    {
      chain: t.chain,
      mempool: new FakeMempool(),
      kms: t.kms,
      store: new WalletStore(t.kv),
      logger: pino({ level: 'silent' }),
      signal: new AbortController().signal,
    },
  );
  assert.equal(restarted.balance(C)?.balance, 65n);
  await restarted.close();
  // The same config again changes nothing.
  assert.deepEqual(reloadKeys(file, { ...t, proofs: INSECURE_TEST_PROOFS }), {
    kms: { added: [], removed: [], changed: [] },
    wallet: { added: [], removed: [] },
    leader_keys: 2,
  });
});

test('a refused reload changes nothing: a malformed key, a config others may read, no config file', async () => {
  const t = await setUp();
  const targets = { ...t, proofs: INSECURE_TEST_PROOFS };
  const unchanged = () => {
    assert.equal(t.kms.hasZk(B), true);
    assert.equal(t.kms.hasZk(C), false);
    assert.equal(t.wallet.balance(B)?.balance, 300n);
    assert.equal(t.leader.keys, undefined);
  };
  // A good new key next to a ZK secret that is not a field element: nothing is taken.
  const bad = configFile(
    'bad.yaml',
    { [zkKeyId(C)]: zk(carol), broken: `!Zk '${'ff'.repeat(32)}'` },
    { c: hexOf(C) },
  );
  assert.throws(
    () => reloadKeys(bad, targets),
    (e: Error) =>
      e instanceof ConfigError &&
      /kms\.backend\.keys\.broken/.test(e.message) &&
      !e.message.includes('ff'.repeat(32)),
  );
  unchanged();
  // A known key that is not a field element (the key store part is fine).
  const badKnown = configFile('bad-known.yaml', { [zkKeyId(C)]: zk(carol) }, { c: 'ff'.repeat(32) });
  assert.throws(() => reloadKeys(badKnown, targets), /wallet\.known_keys\.c/);
  unchanged();
  const open = configFile('open.yaml', { [zkKeyId(C)]: zk(carol) }, { c: hexOf(C) });
  chmodSync(open, 0o644);
  assert.throws(
    () => reloadKeys(open, targets),
    (e: Error) =>
      e instanceof PrivateFileError &&
      e.message === `${open} is readable by other users (mode 644); chmod 600 it`,
  );
  unchanged();
  assert.throws(
    () => reloadKeys(undefined, targets),
    (e: Error) => e instanceof NodeError && e.code === 'NODE_NO_CONFIG_FILE',
  );
  unchanged();
  await t.wallet.close();
});
