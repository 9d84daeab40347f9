/**
 * This node's Groth16 prover (@logos-ts/groth16, the `wasm` backend) against snarkjs as the oracle:
 * random statements of each circuit (ZkSig, PoL, PoC, PoQ) are proved through the node's backend,
 * and each proof verifies under the circuit's verification key by snarkjs' own `groth16.verify`,
 * while the same proof with one public input changed does not. A malformed witness is refused with a
 * message, and a proof aborted while it is made stops without breaking the next one.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Groth16Prover } from '@logos-ts/groth16/prover';
import { entropyContribution } from '../../../src/consensus/lottery.ts';
import { FR_MODULUS, frFromAscii } from '../../../src/crypto/field.ts';
import { decompressProof } from '../../../src/crypto/groth16/index.ts';
import { compress } from '../../../src/crypto/poseidon2/index.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import {
  type PolPublicInputs,
  type PolWitness,
  polPublicInputList,
} from '../../../src/ledger/proof-system.ts';
import { UtxoTree } from '../../../src/ledger/trees/utxo-tree.ts';
import { VoucherTree, voucherPath } from '../../../src/ledger/trees/voucher-tree.ts';
import { noteId } from '../../../src/mantle/note.ts';
import { SHIPPED_CIRCUITS_DIR } from '../../../src/zk/circuit-folder.ts';
import { Groth16ProofSystem, pocPublic, poqStatement, zkSignPublic } from '../../../src/zk/groth16-system.ts';
import { validCoreQuotaInputs } from '../../spec/blend/poq-fixtures.ts';

interface Snarkjs {
  groth16: { verify(vk: unknown, pub: string[], proof: unknown): Promise<boolean> };
}
const SNARKJS: string = 'snarkjs';
const snarkjs = (await import(SNARKJS)) as Snarkjs;

const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR, backend: 'wasm' });
after(async () => {
  await zk.close();
  // snarkjs' verify built its curve with worker threads, which would keep the process alive.
  await (globalThis as { curve_bn128?: { terminate(): Promise<void> } }).curve_bn128?.terminate();
});

const vk = (dir: string) =>
  JSON.parse(readFileSync(join(SHIPPED_CIRCUITS_DIR, dir, 'verification_key.json'), 'utf8'));

/** snarkjs' verdict on a compressed proof and public inputs; and with input `change` bumped. */
async function oracle(dir: string, publicInputs: bigint[], proof: Uint8Array, change = 0): Promise<void> {
  const key = vk(dir);
  const json = decompressProof(proof);
  assert.equal(
    await snarkjs.groth16.verify(key, publicInputs.map(String), json),
    true,
    'snarkjs verifies it',
  );
  const changed = publicInputs.map((x, i) =>
    i === change ? ((x + 1n) % FR_MODULUS).toString() : x.toString(),
  );
  assert.equal(await snarkjs.groth16.verify(key, changed, json), false, 'not with an input changed');
}

let seed = 0x5eed;
const rnd = (bits = 200): bigint => {
  let v = 0n;
  for (let i = 0; i < bits; i += 16) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    v = (v << 16n) | BigInt(seed & 0xffff);
  }
  return (v % (FR_MODULUS - 2n)) + 1n;
};

/** A leadership statement that holds: a random note in the tree, a lottery under which it wins. */
function polStatement(k: number): { inputs: PolPublicInputs; witness: PolWitness } {
  const sk = rnd();
  const value = (rnd(40) % 1_000_000_000n) + 1n;
  const id = noteId(new Uint8Array(32).fill(k + 1), k, { value, pk: zkPublicKey(sk) });
  const tree = UtxoTree.empty().insert(rnd()).tree.insert(id).tree;
  const slot = rnd(30);
  return {
    inputs: {
      entropy_contribution: entropyContribution(slot, id, sk),
      slot,
      epoch_nonce: rnd(),
      lottery_0: (FR_MODULUS - 1n) / value,
      lottery_1: 0n,
      aged_root: tree.root(),
      latest_root: tree.root(),
      leader_pk1: rnd(100),
      leader_pk2: rnd(100),
    },
    witness: {
      secret_key: sk,
      note_value: value,
      note_tx_hash: BigInt(`0x${(k + 1).toString(16).padStart(2, '0').repeat(32)}`) % FR_MODULUS,
      note_output_index: k,
      aged_path: tree.path(1),
      aged_index: 1,
      latest_path: tree.path(1),
      latest_index: 1,
    },
  };
}

describe('own prover: random statements verify under snarkjs', () => {
  test('ZkSig, with 1 to 3 keys', async () => {
    for (let k = 1; k <= 3; k++) {
      const sks = Array.from({ length: k }, () => rnd());
      const msg = rnd();
      const sig = await zk.proveZkSign(msg, sks);
      const bytes = new Uint8Array([...sig.pi_a, ...sig.pi_b, ...sig.pi_c]);
      await oracle('signature', zkSignPublic({ msg, publicKeys: sks.map(zkPublicKey) }), bytes, 32);
    }
  });

  test('PoL: a winning note of a random key and value', async () => {
    for (let k = 0; k < 2; k++) {
      const { inputs, witness } = polStatement(k);
      await oracle('pol', polPublicInputList(inputs), await zk.provePol(inputs, witness), 1);
    }
  });

  test('PoC: a random voucher among random ones', async () => {
    const secrets = Array.from({ length: 5 }, () => rnd());
    const leaves = secrets.map((s) => compress(frFromAscii('REWARD_VOUCHER'), s));
    let tree = VoucherTree.empty();
    for (const l of leaves) tree = tree.append(l);
    for (const i of [0, 3]) {
      const inputs = {
        voucher_nullifier: compress(frFromAscii('VOUCHER_NF'), secrets[i]!),
        voucher_root: tree.root(),
        mantle_tx_hash: rnd(),
      };
      const proof = await zk.provePoc(inputs, {
        voucher_secret: secrets[i]!,
        voucher_path: voucherPath(leaves, i),
        voucher_index: i,
      });
      await oracle('poc', pocPublic(inputs), proof, 2);
    }
  });

  test('PoQ: the core branch for a random signing key', async () => {
    const key = new Uint8Array(32).map(() => Number(rnd(8) & 0xffn));
    const core = validCoreQuotaInputs(key, 1n);
    const { proof, keyNullifier } = await zk.provePoq(core.public, { ...core.witness, key_index: 0n });
    const st = poqStatement(core.public, keyNullifier, proof)!;
    await oracle('poq', st.publicInputs, st.proof, 0);
  });
});

describe('own prover: refusals and aborts', () => {
  const zkey = new Uint8Array(readFileSync(join(SHIPPED_CIRCUITS_DIR, 'signature', 'proving_key.zkey')));
  test('a witness of another circuit, or with a value out of the field, is refused with a message', async () => {
    const p = await Groth16Prover.start();
    try {
      p.addKey('zksig', zkey);
      const wtns = (count: number, last: bigint) => {
        const head = [...'wtns'].map((c) => c.charCodeAt(0));
        const le = (v: bigint, n: number) =>
          Array.from({ length: n }, (_, i) => Number((v >> BigInt(8 * i)) & 0xffn));
        const values = [1n, ...Array.from({ length: count - 2 }, () => 0n), last];
        return new Uint8Array([
          ...head,
          ...le(2n, 4),
          ...le(2n, 4),
          ...le(1n, 4),
          ...le(40n, 8),
          ...le(32n, 4),
          ...le(FR_MODULUS, 32),
          ...le(BigInt(count), 4),
          ...le(2n, 4),
          ...le(BigInt(count * 32), 8),
          ...values.flatMap((v) => le(v, 32)),
        ]);
      };
      await assert.rejects(p.prove('zksig', wtns(10, 0n)), /the witness has 10 values, the key 7715/);
      await assert.rejects(p.prove('zksig', wtns(7715, FR_MODULUS)), /witness value 7714 is not below r/);
      await assert.rejects(p.prove('zksig', new Uint8Array(8)), { code: 'GROTH16_FILE_INVALID' });
      await assert.rejects(p.prove('nokey', wtns(10, 0n)), /no proving key named nokey/);
      assert.throws(() => p.addKey('zksig', zkey), /already loaded/);
    } finally {
      await p.close();
    }
  });

  test('an aborted proof stops with "no longer needed"; the next one is made', async () => {
    const { inputs, witness } = polStatement(7);
    const controller = new AbortController();
    const started = zk.provePol(inputs, witness, { signal: controller.signal });
    controller.abort();
    await assert.rejects(started, /no longer needed/);
    assert.equal(await zk.verifyPol(inputs, await zk.provePol(inputs, witness)), true);
  });
});
