// ZkSig (ZkSign): knowledge of the secret keys of 32 public keys, bound to a message
// (reference/crypto.md §5, §7; src/ledger/proof-system.ts ZkSignStatement).
//
// Public inputs, in this order: pks[32], msg (the tx hash as Fr). Private: sks[32].
// Statement: pks[i] = compress(KDF, sks[i]) for every slot. A signer with fewer than 32 keys pads the
// unused slots with sk = 0 and pk = compress(KDF, 0). msg enters one quadratic constraint so that it is
// bound to the proof (a public input that appears in no constraint could be changed freely).
pragma circom 2.0.0;

include "poseidon2.circom";

template ZkSig(n) {
    signal input pks[n];
    signal input msg;
    signal input sks[n];

    // KDF = LE integer of "KDF" (src/crypto/zk-keys.ts).
    var KDF = 4605003;

    component pk[n];
    for (var i = 0; i < n; i++) {
        pk[i] = Poseidon2Compress();
        pk[i].l <== KDF;
        pk[i].r <== sks[i];
        pks[i] === pk[i].out;
    }

    signal msgSq;
    msgSq <== msg * msg;
}

component main {public [pks, msg]} = ZkSig(32);
