import { decodeSignedTx, encodeSignedTx, type SignedMantleTx, txHash } from '../src/mantle/tx.ts';
import { type Figure, rate } from './harness.ts';

/** A typical wallet transfer: two input notes, a payment and a change output, one ZkSig. */
function typicalTransfer(i: number): SignedMantleTx {
  const fill = (n: number, v: number) => new Uint8Array(n).fill(v);
  return {
    mantle_tx: {
      ops: [
        {
          opcode: 0,
          payload: {
            inputs: [BigInt(i) * 7919n + 1n, BigInt(i) * 104729n + 2n],
            outputs: [
              { value: 1_000_000n + BigInt(i), pk: 123456789n * BigInt(i + 1) },
              { value: 18_446_744_073n, pk: 987654321n },
            ],
          },
        },
      ],
    },
    ops_proofs: [
      { type: 'ZkSig', signature: { pi_a: fill(32, i), pi_b: fill(64, i + 1), pi_c: fill(32, i + 2) } },
    ],
  };
}

export const figures: Figure[] = [
  {
    name: 'tx.codec_per_s',
    unit: 'txs/s',
    measure() {
      const txs = Array.from({ length: 64 }, (_, i) => typicalTransfer(i));
      return rate(() => {
        for (const tx of txs) {
          const decoded = decodeSignedTx(encodeSignedTx(tx));
          txHash(decoded.mantle_tx);
        }
      }, txs.length);
    },
  },
];
