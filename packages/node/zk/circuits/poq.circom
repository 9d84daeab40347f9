// Proof of quota of Blend (reference/services.md §5; F: zk/proofs/poq/src/**, blend/proofs/src/quota/**,
// blend/proofs/src/selection/mod.rs, blend/crypto/src/merkle.rs, blend/proofs/src/quota/pow.rs;
// src/crypto/blend/poq.ts builds its inputs).
//
// Output (first public signal): key_nullifier.
// Public inputs, in this order (F PoQVerifierInput::to_inputs): core_quota, leader_quota, core_root,
// pow_quota, pol_ledger_aged, k_part_one, k_part_two, pow_blend_difficulty, pol_epoch_nonce, pol_t0,
// pol_t1.
// Private: selector (0 core, 1 leader, 2 proof of work), index, core_sk, core_path[20], core_bits[20],
// pol_slot, pol_secret_key, pol_note_value, pol_note_tx_hash, pol_note_output_number, pol_path[32],
// pol_bits[32], pow_nonce (paths leaf level first, bits = the leaf index LSB first). The branches not
// selected take any values (the prover gives zeros); only the selected one is enforced.
// Statement:
//   selector in {0, 1, 2}; the three quotas and index are 20-bit; index < the selected branch's quota
//   core (0):   compress(KDF, core_sk) is a leaf of the height-20 core tree with root core_root
//   leader (1): pk = compress(KDF, pol_secret_key);
//               note_id = digest([NOTE_ID_V1, tx_hash, output_number, value, pk]) is at pol_bits under
//               pol_ledger_aged (32 levels); value < 2^64;
//               digest([LEAD_V1, pol_epoch_nonce, pol_slot, note_id, pol_secret_key])
//                 < value * (pol_t0 + pol_t1 * value)                   (as integers in [0, p))
//   pow (2):    digest([BLEND_POW_V1, pol_epoch_nonce, pow_nonce]) < pow_blend_difficulty (strict)
//   secret = core_sk | pol_secret_key | pow_nonce; other = pol_epoch_nonce | pol_slot | pol_epoch_nonce
//   selection_randomness = digest([SELECTION_RANDOMNESS_V1, secret, index, other])
//   key_nullifier = compress(KEY_NULLIFIER_V1, selection_randomness)
//   k_part_one, k_part_two (the ephemeral Ed25519 signing key as two 16-byte LE halves) are bound by
//   quadratic constraints.
pragma circom 2.0.0;

include "poseidon2.circom";
include "merkle.circom";
include "comparators.circom";

template ProofOfQuota() {
    signal output key_nullifier;

    signal input core_quota;
    signal input leader_quota;
    signal input core_root;
    signal input pow_quota;
    signal input pol_ledger_aged;
    signal input k_part_one;
    signal input k_part_two;
    signal input pow_blend_difficulty;
    signal input pol_epoch_nonce;
    signal input pol_t0;
    signal input pol_t1;

    signal input selector;
    signal input index;
    signal input core_sk;
    signal input core_path[20];
    signal input core_bits[20];
    signal input pol_slot;
    signal input pol_secret_key;
    signal input pol_note_value;
    signal input pol_note_tx_hash;
    signal input pol_note_output_number;
    signal input pol_path[32];
    signal input pol_bits[32];
    signal input pow_nonce;

    // LE integers of the ASCII tags (src/crypto/field.ts frFromAscii).
    var KDF = 4605003;
    var NOTE_ID_V1 = 232989242343357190262606;
    var LEAD_V1 = 13887241025832268;
    var BLEND_POW_V1 = 15269183337130546179674033218;
    var SELECTION_RANDOMNESS_V1 = 4725583332308041445519605499429790922252397838206780755;
    var KEY_NULLIFIER_V1 = 65580642670359595206974785265459610955;

    // The branch: one of three booleans, selector = isLeader + 2 * isPow.
    signal isCore;
    signal isLeader;
    signal isPow;
    isCore <-- selector == 0 ? 1 : 0;
    isLeader <-- selector == 1 ? 1 : 0;
    isPow <-- selector == 2 ? 1 : 0;
    isCore * (isCore - 1) === 0;
    isLeader * (isLeader - 1) === 0;
    isPow * (isPow - 1) === 0;
    isCore + isLeader + isPow === 1;
    selector === isLeader + 2 * isPow;

    // Quotas and index are 20-bit; index < the selected quota.
    component coreQuotaBits = Num2Bits(20);
    coreQuotaBits.in <== core_quota;
    component leaderQuotaBits = Num2Bits(20);
    leaderQuotaBits.in <== leader_quota;
    component powQuotaBits = Num2Bits(20);
    powQuotaBits.in <== pow_quota;
    component indexBits = Num2Bits(20);
    indexBits.in <== index;
    signal coreQuotaSel;
    coreQuotaSel <== isCore * core_quota;
    signal leaderQuotaSel;
    leaderQuotaSel <== isLeader * leader_quota;
    signal powQuotaSel;
    powQuotaSel <== isPow * pow_quota;
    component indexBelow = LessThanBits(20);
    indexBelow.a <== index;
    indexBelow.b <== coreQuotaSel + leaderQuotaSel + powQuotaSel;
    indexBelow.out === 1;

    // Core branch: the core key is a leaf of the core tree.
    component corePk = Poseidon2Compress();
    corePk.l <== KDF;
    corePk.r <== core_sk;
    component coreTree = MerkleRoot(20);
    coreTree.leaf <== corePk.out;
    coreTree.path <== core_path;
    coreTree.bits <== core_bits;
    isCore * (coreTree.root - core_root) === 0;

    // Leader branch: a note of the aged snapshot wins the slot's lottery.
    component polPk = Poseidon2Compress();
    polPk.l <== KDF;
    polPk.r <== pol_secret_key;
    component noteId = Poseidon2Digest(5);
    noteId.in[0] <== NOTE_ID_V1;
    noteId.in[1] <== pol_note_tx_hash;
    noteId.in[2] <== pol_note_output_number;
    noteId.in[3] <== pol_note_value;
    noteId.in[4] <== polPk.out;
    component aged = MerkleRoot(32);
    aged.leaf <== noteId.out;
    aged.path <== pol_path;
    aged.bits <== pol_bits;
    isLeader * (aged.root - pol_ledger_aged) === 0;

    component valueBits = Num2Bits(64);
    valueBits.in <== pol_note_value;
    signal t1v;
    t1v <== pol_t1 * pol_note_value;
    signal threshold;
    threshold <== pol_note_value * (pol_t0 + t1v);
    component leadTicket = Poseidon2Digest(5);
    leadTicket.in[0] <== LEAD_V1;
    leadTicket.in[1] <== pol_epoch_nonce;
    leadTicket.in[2] <== pol_slot;
    leadTicket.in[3] <== noteId.out;
    leadTicket.in[4] <== pol_secret_key;
    component wins = FieldLessThan();
    wins.a <== leadTicket.out;
    wins.b <== threshold;
    isLeader * (1 - wins.out) === 0;

    // Proof-of-work branch: the nonce's ticket is strictly below the difficulty.
    component powTicket = Poseidon2Digest(3);
    powTicket.in[0] <== BLEND_POW_V1;
    powTicket.in[1] <== pol_epoch_nonce;
    powTicket.in[2] <== pow_nonce;
    component solves = FieldLessThan();
    solves.a <== powTicket.out;
    solves.b <== pow_blend_difficulty;
    isPow * (1 - solves.out) === 0;

    // Selection randomness and key nullifier.
    signal coreSecret;
    coreSecret <== isCore * core_sk;
    signal leaderSecret;
    leaderSecret <== isLeader * pol_secret_key;
    signal powSecret;
    powSecret <== isPow * pow_nonce;
    signal nonceOther;
    nonceOther <== (isCore + isPow) * pol_epoch_nonce;
    signal slotOther;
    slotOther <== isLeader * pol_slot;
    component randomness = Poseidon2Digest(4);
    randomness.in[0] <== SELECTION_RANDOMNESS_V1;
    randomness.in[1] <== coreSecret + leaderSecret + powSecret;
    randomness.in[2] <== index;
    randomness.in[3] <== nonceOther + slotOther;
    component nullifier = Poseidon2Compress();
    nullifier.l <== KEY_NULLIFIER_V1;
    nullifier.r <== randomness.out;
    key_nullifier <== nullifier.out;

    // Bind the ephemeral signing key.
    signal k1Sq;
    k1Sq <== k_part_one * k_part_one;
    signal k2Sq;
    k2Sq <== k_part_two * k_part_two;
}

component main {public [core_quota, leader_quota, core_root, pow_quota, pol_ledger_aged, k_part_one, k_part_two, pow_blend_difficulty, pol_epoch_nonce, pol_t0, pol_t1]} = ProofOfQuota();
