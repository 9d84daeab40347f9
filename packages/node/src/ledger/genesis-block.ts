/**
 * A genesis block given whole by a deployment file, in the YAML form of the reference's deployment
 * settings (F: nodes/node/binary/src/config/deployment/settings.yaml, `cryptarchia.genesis_block`,
 * read by serde_yaml): externally tagged proofs written as YAML tags (`!ZkSig {...}`,
 * `!Ed25519Sig '<hex>'`), u64 values as bare integers, everything else as in the core JSON form.
 * The block is decoded with this node's block codec (src/block/block.ts); the deployment's genesis
 * (chain id, time, nonce, notes, declarations) is then read back from it.
 */

import type { Json } from '@logos-ts/shared/json';
import type { Block } from '../block/block.ts';
import { block as blockCodec } from '../block/block.ts';
import { noteId } from '../mantle/note.ts';
import { Opcode, opId } from '../mantle/ops.ts';
import type { GenesisSpec } from './deployment-types.ts';
import { LedgerError } from './errors.ts';
import { genesisParameter } from './genesis.ts';

/** The proof variants a serde_yaml enum tag may name (F: core/src/mantle/ops/mod.rs `OpProof`). */
const PROOF_VARIANTS = ['Ed25519Sig', 'ZkSig', 'ZkAndEd25519Sigs', 'PoC', 'ChannelMultiSigProof', 'None'];

/**
 * YAML tags of serde_yaml's externally tagged enums: `!Variant <value>` reads as `{"Variant": value}`,
 * the core JSON form of the same value. Pass to the YAML parser's `customTags`.
 */
export const proofTags = PROOF_VARIANTS.flatMap((v) => [
  { tag: `!${v}`, resolve: (s: string) => ({ [v]: s }) },
  {
    tag: `!${v}`,
    collection: 'map' as const,
    resolve: (m: { toJSON(): unknown }) => ({ [v]: m.toJSON() }),
  },
]);

type Obj = { [k: string]: Json };

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A copy of `o` with `from` renamed to `to`, unless `to` is already there. */
function renamed(o: Obj, from: string, to: string): Obj {
  if (!Object.hasOwn(o, from) || Object.hasOwn(o, to)) return o;
  const { [from]: v, ...rest } = o;
  return { ...rest, [to]: v as Json };
}

/**
 * The block of a deployment's `genesis.block`. F's testnet file predates two renames, read here under
 * both names: the header's `block_root` (now `body_root`; F 977dd3a8a) and an SDP declaration's
 * `locked_note_id` (0.3.1's `service_note_id`); a missing `uncle_headers` is the empty list (a genesis
 * block has none; the file predates the field). Throws the codec's `DecodeError` naming the field.
 */
export function decodeGenesisBlock(v: unknown): Block {
  if (!isObj(v)) return blockCodec.fromJson(v as Json);
  const header = isObj(v.header) ? renamed(v.header, 'block_root', 'body_root') : v.header;
  const transactions = Array.isArray(v.transactions)
    ? v.transactions.map((t) => {
        if (!isObj(t) || !isObj(t.mantle_tx) || !Array.isArray(t.mantle_tx.ops)) return t;
        const ops = t.mantle_tx.ops.map((o) =>
          isObj(o) && isObj(o.payload)
            ? { ...o, payload: renamed(o.payload, 'locked_note_id', 'service_note_id') }
            : o,
        );
        return { ...t, mantle_tx: { ...t.mantle_tx, ops } };
      })
    : v.transactions;
  const uncle_headers = Object.hasOwn(v, 'uncle_headers') ? (v.uncle_headers as Json) : [];
  return blockCodec.fromJson({
    ...v,
    header: header as Json,
    uncle_headers,
    transactions: transactions as Json,
  });
}

/** A deployment's genesis contents, as a block holds them (its genesis time is always known). */
export type GenesisContents = Omit<GenesisSpec, 'block' | 'genesis_time'> & { readonly genesis_time: number };

/**
 * What a genesis block holds, read as a deployment's genesis: the chain parameter of its inscription,
 * the notes its transfer creates and its SDP declarations, each with the index of the genesis note it
 * locks. Throws `LedgerError('InvalidGenesis')` for a block of another shape, or a declaration that
 * locks a note the genesis does not create.
 */
export function genesisContents(b: Block): GenesisContents {
  if (b.transactions.length !== 1)
    throw new LedgerError('InvalidGenesis', 'genesis block must contain exactly one transaction');
  const tx = b.transactions[0]!;
  const parameter = genesisParameter(tx);
  const [transfer, , ...rest] = tx.mantle_tx.ops;
  if (transfer?.opcode !== Opcode.Transfer) throw new RangeError('unreachable: checked by genesisParameter');
  const transferId = opId(transfer);
  const outputs = transfer.payload.outputs;
  const ids = outputs.map((n, i) => noteId(transferId, i, n));
  const declarations = rest.map((o, i) => {
    if (o.opcode !== Opcode.SDPDeclare) throw new RangeError('unreachable: checked by genesisParameter');
    const p = o.payload;
    const note_index = ids.indexOf(p.service_note_id);
    if (note_index < 0)
      throw new LedgerError(
        'InvalidGenesis',
        `genesis declaration ${i} locks a note the genesis transfer does not create`,
      );
    return { locators: p.locators, provider_id: p.provider_id, zk_id: p.zk_id, note_index };
  });
  return {
    chain_id: parameter.chain_id,
    genesis_time: parameter.genesis_time,
    epoch_nonce: parameter.epoch_nonce,
    notes: outputs.map((n) => ({ value: n.value, pk: n.pk })),
    declarations,
  };
}
