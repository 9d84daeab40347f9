// Test circuit: exposes the permutation, compress and digest (1, 2, 5 inputs) as outputs so the tests
// can compare them with the TypeScript Poseidon2. Not used by the node.
pragma circom 2.0.0;

include "../poseidon2.circom";

template Poseidon2Test() {
    signal input perm_in[3];
    signal input compress_in[2];
    signal input digest1_in[1];
    signal input digest2_in[2];
    signal input digest5_in[5];
    signal output perm_out[3];
    signal output compress_out;
    signal output digest1_out;
    signal output digest2_out;
    signal output digest5_out;

    component p = Poseidon2Perm();
    p.in <== perm_in;
    perm_out <== p.out;

    component c = Poseidon2Compress();
    c.l <== compress_in[0];
    c.r <== compress_in[1];
    compress_out <== c.out;

    component d1 = Poseidon2Digest(1);
    d1.in <== digest1_in;
    digest1_out <== d1.out;

    component d2 = Poseidon2Digest(2);
    d2.in <== digest2_in;
    digest2_out <== d2.out;

    component d5 = Poseidon2Digest(5);
    d5.in <== digest5_in;
    digest5_out <== d5.out;
}

component main = Poseidon2Test();
