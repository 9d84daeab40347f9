// Test circuit for comparators.circom. Not used by the node.
//   bits[254]: arbitrary booleans that must encode an integer <= p - 1 (AssertBitsLeqConst, the alias
//              check of Num2BitsStrict); the witness fails otherwise.
//   lt = FieldLessThan(a, b), the comparison used by the proof of leadership.
pragma circom 2.0.0;

include "../comparators.circom";

template ComparatorsTest() {
    signal input bits[254];
    signal input a;
    signal input b;
    signal output lt;

    for (var i = 0; i < 254; i++) {
        bits[i] * (bits[i] - 1) === 0;
    }
    component leq = AssertBitsLeqConst(254, -1);
    leq.in <== bits;

    component c = FieldLessThan();
    c.a <== a;
    c.b <== b;
    lt <== c.out;
}

component main = ComparatorsTest();
