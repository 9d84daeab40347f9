/** A test transaction of two signed channel inscriptions of a given size (over 2 MiB together when large). */
import { Ed25519Signer } from '../../../src/crypto/ed25519.ts';
import { Opcode } from '../../../src/mantle/ops.ts';
import type { SignedMantleTx } from '../../../src/mantle/tx.ts';
import { signTx } from '../../mocks/ledger.ts';

export function inscriptionsTx(bytes: number): SignedMantleTx {
  const signer = new Ed25519Signer(new Uint8Array(32).fill(9));
  const op = (fill: number) => ({
    opcode: Opcode.ChannelInscribe,
    payload: {
      channel_id: new Uint8Array(32).fill(fill),
      inscription: new Uint8Array(bytes).fill(fill),
      parent: new Uint8Array(32),
      signer: signer.publicKey,
    },
  });
  return signTx([op(1), op(2)] as never, [], (hash) => ({
    type: 'Ed25519Sig',
    signature: signer.sign(hash),
  }));
}
