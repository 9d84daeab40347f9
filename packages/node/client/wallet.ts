/**
 * Wallet helpers over the typed client: a transfer from the node's wallet, funding a transaction and
 * completing its proofs (the caller's ops signed over the funded hash, the fee transfer's proof from
 * the node), and waiting until a transaction is included in the canonical chain.
 *
 *   const hash = await transfer(node, { from: pkA, to: pkB, amount: 10n });
 *   const tx = await waitForInclusion(node, hash);
 */

import type { Json } from '@logos-ts/shared/json';
import { bytesToHex } from '../src/codec/hex.ts';
import { mantleTx, txHash } from '../src/mantle/tx.ts';
import { ApiResponseError, type LogosClient } from './index.ts';
import type { SignedTransaction } from './types.ts';

export interface TransferArgs {
  /** ZK public key (hex) whose notes pay; change goes back to it unless `change` is given. */
  readonly from: string;
  readonly to: string;
  readonly amount: bigint;
  readonly change?: string;
  /** Block to fund against (default: the node's tip). */
  readonly tip?: string;
}

/** `POST /wallet/transactions/transfer-funds`: funded with the exact mandatory fee, signed and submitted; its hash. */
export async function transfer(node: LogosClient, a: TransferArgs): Promise<string> {
  const r = await node.walletTransferFunds({
    body: {
      tip: a.tip ?? null,
      change_public_key: a.change ?? a.from,
      funding_public_keys: [a.from],
      recipient_public_key: a.to,
      amount: a.amount,
    },
  });
  return r.hash;
}

export interface FundAndSignArgs {
  /** The unsigned builder (`{mantle_tx:{ops}, ledger_inputs, pending_transfer, channel_multi_sig_proofs}`). */
  readonly txBuilder: Json;
  readonly changePk: string;
  readonly fundingPks: readonly string[];
  readonly maxTxFee: bigint;
  readonly priorityFeePercent?: bigint;
  /**
   * The proofs of the builder's own ops (JSON, in op order), made over the funded transaction's hash
   * (hex): with the caller's keys, or with the node's through `walletSignEd25519` / `walletSignZk`.
   */
  readonly signOps: (fundedTx: Json, hash: string) => Promise<Json[]>;
}

/**
 * Funds a builder with the node's wallet (`POST /wallet/fund`) and completes its proofs: the caller's,
 * then the node's proof of the appended fee transfer. The result can be sent to `/mempool/add/tx`.
 */
export async function fundAndSign(
  node: LogosClient,
  a: FundAndSignArgs,
): Promise<{ tip: string; tx: { mantle_tx: Json; ops_proofs: Json[] } }> {
  const funded = await node.walletFund({
    body: {
      tip: null,
      tx_builder: a.txBuilder as never,
      change_public_key: a.changePk,
      funding_public_keys: [...a.fundingPks],
      max_tx_fee: a.maxTxFee,
      priority_fee_percent: a.priorityFeePercent ?? 0n,
    },
  });
  const hash = bytesToHex(txHash(mantleTx.fromJson(funded.funded_tx)));
  const own = await a.signOps(funded.funded_tx, hash);
  const proofs = funded.transfer_proof === null ? own : [...own, funded.transfer_proof];
  return { tip: funded.tip, tx: { mantle_tx: funded.funded_tx, ops_proofs: proofs } };
}

/**
 * Waits until the transaction is in the canonical chain: it is no longer pending (`POST /mantle/status`)
 * and `GET /cryptarchia/transaction/{hash}` finds it (that endpoint also serves pending transactions,
 * as the reference's does, so it alone does not tell inclusion).
 */
export async function waitForInclusion(
  node: LogosClient,
  hash: string,
  opts: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {},
): Promise<SignedTransaction> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    const [status] = await node.mantleStatus({ body: [hash] });
    if (status !== 'Pending') {
      try {
        return await node.cryptarchiaTransaction({ params: { id: hash } });
      } catch (e) {
        if (!(e instanceof ApiResponseError) || e.status !== 404) throw e;
      }
    }
    if (Date.now() > deadline) throw new Error(`transaction ${hash} not included within the timeout`);
    opts.signal?.throwIfAborted();
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 500));
  }
}
