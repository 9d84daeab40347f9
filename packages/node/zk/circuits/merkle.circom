// Merkle path check for the node's height-32 Poseidon2 trees (UTXO tree, voucher tree;
// src/crypto/poseidon2 `merkleRoot`, src/ledger/trees): node = compress(left, right), and at level i bit i
// of the leaf index (LSB = level 0) says whether the current node is the left (0) or right (1) child:
//   bit 0: parent = compress(node, sibling)      bit 1: parent = compress(sibling, node)
pragma circom 2.0.0;

include "poseidon2.circom";

// The root reached from `leaf` through the siblings path[0..levels) (leaf level first), with the leaf
// index given as little-endian bits. Each bit is constrained boolean. Per level: 1 booleanity constraint,
// 1 selection constraint (left = node + b * (sibling - node); right = sibling + node - left is linear),
// and a compression (240).
template MerkleRoot(levels) {
    signal input leaf;
    signal input path[levels];
    signal input bits[levels];
    signal output root;

    signal left[levels];
    component h[levels];
    var node = leaf;
    for (var i = 0; i < levels; i++) {
        bits[i] * (bits[i] - 1) === 0;
        left[i] <== node + bits[i] * (path[i] - node);
        h[i] = Poseidon2Compress();
        h[i].l <== left[i];
        h[i].r <== path[i] + node - left[i];
        node = h[i].out;
    }
    root <== node;
}

// The 32-level path check of the node's trees: the path from `leaf` at index `bits` reaches `root`.
template MerklePath32() {
    signal input leaf;
    signal input path[32];
    signal input bits[32];
    signal input root;
    component m = MerkleRoot(32);
    m.leaf <== leaf;
    m.path <== path;
    m.bits <== bits;
    m.root === root;
}
