// Proof of claim (leader reward voucher; reference/crypto.md §7, ledger.md §8;
// src/ledger/proof-system.ts PocPublicInputs).
//
// Public inputs, in this order: voucher_nullifier, voucher_root, mantle_tx_hash (the claiming tx hash as
// Fr). Private: voucher_secret, path[32], index_bits[32] (the voucher's leaf index, LSB = level 0).
// Statement:
//   voucher_cm = compress(REWARD_VOUCHER, voucher_secret) is at leaf index_bits of the 32-level Poseidon2
//   voucher tree whose root is voucher_root;
//   voucher_nullifier = compress(VOUCHER_NF, voucher_secret);
//   mantle_tx_hash is bound by a quadratic constraint.
pragma circom 2.0.0;

include "poseidon2.circom";
include "merkle.circom";

template ProofOfClaim() {
    signal input voucher_nullifier;
    signal input voucher_root;
    signal input mantle_tx_hash;
    signal input voucher_secret;
    signal input path[32];
    signal input index_bits[32];

    // LE integers of the ASCII tags (src/crypto/field.ts frFromAscii).
    var REWARD_VOUCHER = 1668646695034522932676805048878418;
    var VOUCHER_NF = 332011368467182873038678;

    component cm = Poseidon2Compress();
    cm.l <== REWARD_VOUCHER;
    cm.r <== voucher_secret;

    component member = MerklePath32();
    member.leaf <== cm.out;
    member.path <== path;
    member.bits <== index_bits;
    member.root <== voucher_root;

    component nf = Poseidon2Compress();
    nf.l <== VOUCHER_NF;
    nf.r <== voucher_secret;
    voucher_nullifier === nf.out;

    signal txSq;
    txSq <== mantle_tx_hash * mantle_tx_hash;
}

component main {public [voucher_nullifier, voucher_root, mantle_tx_hash]} = ProofOfClaim();
