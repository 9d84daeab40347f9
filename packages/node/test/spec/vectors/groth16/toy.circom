pragma circom 2.0.0;

// Toy statement for the Groth16 tests (scripts/make-groth16-fixture.sh):
// "I know w such that out = x*w + y*w^2". Public signals, in snarkjs order: [out, x, y].
template Toy() {
    signal input x;
    signal input y;
    signal input w;
    signal output out;

    signal w2;
    signal t;
    w2 <== w * w;
    t <== y * w2;
    out <== x * w + t;
}

component main {public [x, y]} = Toy();
