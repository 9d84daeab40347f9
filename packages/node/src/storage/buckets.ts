/**
 * Numbered buckets of the node's key-value store: the first byte of every key.
 *
 * A number, once released, is NEVER reused: a retired bucket stays here as a comment with its number, so
 * an old data directory can never be read with a new meaning. Add new buckets at the end.
 */
export enum Bucket {
  /** ASCII name → value: tip, lib, state, lastOnlineMs (when state was recorded), genesisTimeMs, schema version. */
  Meta = 0,
  /** Block id → encoded block. */
  Blocks = 1,
  /** Block id → u64 BE slot ‖ u64 BE height ‖ parent id. */
  BlockInfo = 2,
  /** u64 BE height → block id of the canonical chain. */
  CanonicalByHeight = 3,
  /** u64 BE slot → block id of the canonical chain. */
  CanonicalBySlot = 4,
  /** Tx hash → block id ‖ u16 BE position of the tx in the block; only txs of canonical blocks. */
  TxIndex = 5,
  /** Block id → encoded ledger events of the block. */
  Events = 6,
  /** Spare: ledger snapshots (owned by the ledger store). */
  LedgerSnapshots = 7,
  /** Block id → the block's tx hashes in order (u16 BE count, then u8 length ‖ hash each). */
  BlockTxs = 8,
  /** u64 BE height ‖ block id → empty: every stored block (forks included) in height order. */
  BlocksByHeight = 9,
  /** ASCII name → value: the wallet's counters (next_voucher_index, u64 BE) and its notes at the LIB (lib_notes_block, lib_notes). */
  Wallet = 10,
  /** u64 BE admission sequence → u64 BE insertion time (ms) ‖ tx hash ‖ encoded tx: the pending pool. */
  MempoolTxs = 11,
  /** ASCII name → value: the node's own SDP state (its current declaration id). */
  Sdp = 12,
  /** PoW ticket (32 bytes BE) → the winner record of src/pow/winners.ts (version byte first). */
  PowWinners = 13,
}
