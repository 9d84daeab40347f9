// Proof of leadership (reference/consensus.md §4, crypto.md §7; src/consensus/lottery.ts,
// src/ledger/proof-system.ts PolPublicInputs / PolWitness).
//
// Public inputs, in this order: entropy_contribution, slot, epoch_nonce, lottery_0, lottery_1, aged_root,
// latest_root, leader_pk1, leader_pk2.
// Private: secret_key, note_value, note_tx_hash (the note's op id as Fr), note_output_index,
// aged_path[32], aged_bits[32], latest_path[32], latest_bits[32] (leaf index bits, LSB = level 0).
// Statement:
//   pk = compress(KDF, secret_key)
//   note_id = digest([NOTE_ID_V1, note_tx_hash, note_output_index, note_value, pk])
//   note_id is at aged_bits under aged_root and at latest_bits under latest_root (32-level paths)
//   note_value < 2^64
//   threshold = note_value * (lottery_0 + lottery_1 * note_value)         (field arithmetic)
//   ticket = digest([LEAD_V1, epoch_nonce, slot, note_id, secret_key])
//   ticket < threshold as integers in [0, p)                             (sound 254-bit comparison)
//   entropy_contribution = digest([NONCE_CONTRIB_V1, slot, note_id, secret_key])
//   leader_pk1, leader_pk2 (the one-time Ed25519 leader key as two 16-byte LE halves) are bound by
//   quadratic constraints.
pragma circom 2.0.0;

include "poseidon2.circom";
include "merkle.circom";
include "comparators.circom";

template ProofOfLeadership() {
    signal input entropy_contribution;
    signal input slot;
    signal input epoch_nonce;
    signal input lottery_0;
    signal input lottery_1;
    signal input aged_root;
    signal input latest_root;
    signal input leader_pk1;
    signal input leader_pk2;

    signal input secret_key;
    signal input note_value;
    signal input note_tx_hash;
    signal input note_output_index;
    signal input aged_path[32];
    signal input aged_bits[32];
    signal input latest_path[32];
    signal input latest_bits[32];

    // LE integers of the ASCII tags (src/crypto/field.ts frFromAscii; src/mantle/note.ts,
    // src/consensus/lottery.ts, src/crypto/zk-keys.ts).
    var KDF = 4605003;
    var NOTE_ID_V1 = 232989242343357190262606;
    var LEAD_V1 = 13887241025832268;
    var NONCE_CONTRIB_V1 = 65580641403957881555985426713123114830;

    // The note and its owner.
    component pk = Poseidon2Compress();
    pk.l <== KDF;
    pk.r <== secret_key;

    component noteId = Poseidon2Digest(5);
    noteId.in[0] <== NOTE_ID_V1;
    noteId.in[1] <== note_tx_hash;
    noteId.in[2] <== note_output_index;
    noteId.in[3] <== note_value;
    noteId.in[4] <== pk.out;

    // Membership in the epoch snapshot (aged) and in the parent state (latest, i.e. unspent).
    component aged = MerklePath32();
    aged.leaf <== noteId.out;
    aged.path <== aged_path;
    aged.bits <== aged_bits;
    aged.root <== aged_root;

    component latest = MerklePath32();
    latest.leaf <== noteId.out;
    latest.path <== latest_path;
    latest.bits <== latest_bits;
    latest.root <== latest_root;

    // Lottery: the value is a u64, the threshold is computed in the field.
    component valueBits = Num2Bits(64);
    valueBits.in <== note_value;

    signal t1v;
    t1v <== lottery_1 * note_value;
    signal threshold;
    threshold <== note_value * (lottery_0 + t1v);

    component ticket = Poseidon2Digest(5);
    ticket.in[0] <== LEAD_V1;
    ticket.in[1] <== epoch_nonce;
    ticket.in[2] <== slot;
    ticket.in[3] <== noteId.out;
    ticket.in[4] <== secret_key;

    component wins = AssertFieldLessThan();
    wins.a <== ticket.out;
    wins.b <== threshold;

    // Entropy contribution to the epoch nonce.
    component entropy = Poseidon2Digest(4);
    entropy.in[0] <== NONCE_CONTRIB_V1;
    entropy.in[1] <== slot;
    entropy.in[2] <== noteId.out;
    entropy.in[3] <== secret_key;
    entropy_contribution === entropy.out;

    // Bind the one-time leader key.
    signal pk1Sq;
    pk1Sq <== leader_pk1 * leader_pk1;
    signal pk2Sq;
    pk2Sq <== leader_pk2 * leader_pk2;
}

component main {public [entropy_contribution, slot, epoch_nonce, lottery_0, lottery_1, aged_root, latest_root, leader_pk1, leader_pk2]} = ProofOfLeadership();
