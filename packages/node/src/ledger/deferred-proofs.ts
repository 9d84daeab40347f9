/**
 * Deferred proof checks: the ledger runs with checks that record each statement and say yes; the
 * recorded statements are then verified by the real (asynchronous) backend, all at once.
 */
import { bytesToHex } from '../codec/hex.ts';
import type { PoqPublicInputs } from '../crypto/blend/poq.ts';
import type { Fr } from '../crypto/field.ts';
import type { Groth16ProofParts } from '../mantle/ops.ts';
import type { ZkSignature } from '../mantle/proofs.ts';
import { LedgerError, type LedgerErrorCode } from './errors.ts';
import type {
  PocPublicInputs,
  PolPublicInputs,
  ProofChecks,
  ProofSite,
  ProofSystem,
  ZkSignStatement,
} from './proof-system.ts';

type Obligation = (
  | { kind: 'zksign'; statement: ZkSignStatement; signature: ZkSignature }
  | { kind: 'pol'; inputs: PolPublicInputs; proof: Uint8Array }
  | { kind: 'poc'; inputs: PocPublicInputs; proof: Uint8Array }
  | { kind: 'poq'; inputs: PoqPublicInputs; keyNullifier: Fr; proof: Groth16ProofParts }
) & { site?: ProofSite };

const FAILURE: Record<Obligation['kind'], [LedgerErrorCode, string]> = {
  zksign: ['InvalidZkSignature', 'a ZK signature does not verify'],
  pol: ['InvalidLeaderProof', 'the proof of leadership does not verify'],
  poc: ['InvalidProofOfClaim', 'a proof of claim does not verify'],
  poq: ['InvalidActivityProof', 'the activity proof does not verify'],
};

export class DeferredProofChecks implements ProofChecks {
  readonly obligations: Obligation[] = [];

  verifyZkSign(statement: ZkSignStatement, signature: ZkSignature, site?: ProofSite): boolean {
    this.obligations.push({ kind: 'zksign', statement, signature, ...(site ? { site } : {}) });
    return true;
  }

  verifyPol(inputs: PolPublicInputs, proof: Uint8Array): boolean {
    this.obligations.push({ kind: 'pol', inputs, proof });
    return true;
  }

  verifyPoc(inputs: PocPublicInputs, proof: Uint8Array, site?: ProofSite): boolean {
    this.obligations.push({ kind: 'poc', inputs, proof, ...(site ? { site } : {}) });
    return true;
  }

  verifyPoq(inputs: PoqPublicInputs, keyNullifier: Fr, proof: Groth16ProofParts, site?: ProofSite): boolean {
    this.obligations.push({ kind: 'poq', inputs, keyNullifier, proof, ...(site ? { site } : {}) });
    return true;
  }

  /**
   * Verifies every recorded statement (all at once, so a pooled backend checks them as batches); throws
   * the LedgerError of the first that fails (in record order), naming its transaction and operation.
   */
  async settle(system: ProofSystem): Promise<void> {
    const results = await Promise.all(this.obligations.map((o) => verifyOne(system, o)));
    const bad = results.findIndex((ok) => !ok);
    if (bad >= 0) {
      const o = this.obligations[bad]!;
      const [code, message] = FAILURE[o.kind];
      if (o.site === undefined) throw new LedgerError(code, message);
      throw new LedgerError(code, `${message} (transaction ${bytesToHex(o.site.txHash)})`, {
        opIndex: o.site.opIndex,
      });
    }
  }
}

function verifyOne(system: ProofSystem, o: Obligation): Promise<boolean> {
  switch (o.kind) {
    case 'zksign':
      return system.verifyZkSign(o.statement, o.signature);
    case 'pol':
      return system.verifyPol(o.inputs, o.proof);
    case 'poc':
      return system.verifyPoc(o.inputs, o.proof);
    case 'poq':
      return system.verifyPoq(o.inputs, o.keyNullifier, o.proof);
  }
}
