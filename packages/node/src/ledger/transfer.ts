/** Transfer (opcode 0): spend notes, create notes. The only op that moves value through the fee balance. */
import { opId, type TransferOp } from '../mantle/ops.ts';
import type { OpProof } from '../mantle/proofs.ts';
import { checkedAdd, type OpEnv, requireDistinct, requireZkSignature } from './op-env.ts';

/** Verifies and executes a transfer; returns Σ inputs − Σ outputs (the fee balance it adds). */
export function applyTransfer(env: OpEnv, op: TransferOp, proof: OpProof): bigint {
  const { draft, opIndex } = env;
  requireDistinct(op.inputs, opIndex);
  let inSum = 0n;
  const keys: bigint[] = [];
  for (const id of op.inputs) {
    const rec = draft.spendable(id, opIndex);
    inSum = checkedAdd(inSum, rec.note.value, opIndex);
    keys.push(rec.note.pk);
  }
  requireZkSignature(env, proof, keys);
  let outSum = 0n;
  for (const o of op.outputs) outSum = checkedAdd(outSum, o.value, opIndex);

  const id = opId({ opcode: 0, payload: op });
  for (const n of op.inputs) draft.removeNote(n);
  op.outputs.forEach((note, i) => {
    draft.addNote(id, i, note, null, opIndex);
  });
  return inSum - outSum;
}
