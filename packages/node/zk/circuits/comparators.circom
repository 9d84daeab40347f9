// Bit decompositions and a sound comparison of two BN254 field elements as integers.
pragma circom 2.0.0;

// out[0..n) = the little-endian bits of `in`, each constrained boolean, with sum out[i] * 2^i === in.
// Sound as a range check `in < 2^n` only for n < 254 (for n >= 254 the sum can wrap: see Num2BitsStrict).
template Num2Bits(n) {
    signal input in;
    signal output out[n];
    var acc = 0;
    var e2 = 1;
    for (var i = 0; i < n; i++) {
        out[i] <-- (in >> i) & 1;
        out[i] * (out[i] - 1) === 0;
        acc += out[i] * e2;
        e2 = e2 + e2;
    }
    acc === in;
}

// Asserts that the little-endian boolean signals in[0..n) encode an integer <= ct (a constant < 2^n).
// Scans from the most significant bit keeping eq = "the bits above i equal those of ct" (a product of
// booleans): where ct has a 1, eq' = eq * in[i] (1 constraint); where ct has a 0, eq * in[i] === 0
// (1 constraint: while the prefix is equal the value may not exceed ct at this bit). If the value exceeded
// ct, at its highest differing bit ct is 0, the bit is 1 and eq is 1, so that constraint fails.
// The inputs must already be constrained boolean.
template AssertBitsLeqConst(n, ct) {
    signal input in[n];
    signal eq[n];
    var e = 1;        // linear expression: 1 while no bit has been consumed, then a signal
    var isConst = 1;
    for (var i = n - 1; i >= 0; i--) {
        if (((ct >> i) & 1) == 1) {
            if (isConst == 1) {
                e = in[i];
                isConst = 0;
            } else {
                eq[i] <== e * in[i];
                e = eq[i];
            }
        } else {
            if (isConst == 1) {
                in[i] === 0;
            } else {
                e * in[i] === 0;
            }
        }
    }
}

// Strict decomposition of a field element into 254 little-endian bits: the bits encode the canonical
// integer of `in` (the alias in + p < 2^254 is rejected by checking the bits encode a value <= p - 1).
template Num2BitsStrict() {
    signal input in;
    signal output out[254];
    component n2b = Num2Bits(254);
    n2b.in <== in;
    component leq = AssertBitsLeqConst(254, -1);   // -1 is p - 1 in the field
    for (var i = 0; i < 254; i++) {
        leq.in[i] <== n2b.out[i];
        out[i] <== n2b.out[i];
    }
}

// out = 1 if in == 0 else 0.
template IsZero() {
    signal input in;
    signal output out;
    signal inv;
    inv <-- in != 0 ? 1 / in : 0;
    out <== 1 - in * inv;
    in * out === 0;
}

// out = 1 if a < b else 0, for a, b < 2^n (n <= 252, not checked here: the caller range-checks them).
// a + 2^n - b lies in (0, 2^(n+1)); its bit n is 1 iff a >= b.
template LessThanBits(n) {
    signal input a;
    signal input b;
    signal output out;
    component n2b = Num2Bits(n + 1);
    n2b.in <== a + (1 << n) - b;
    out <== 1 - n2b.out[n];
}

// out = 1 if a < b else 0, where a and b are field elements compared as integers in [0, p) (a "full"
// comparison). Both are strictly decomposed into 254 bits; the integers are split into 127-bit limbs
// H, L and  a < b  <=>  aH < bH  or  (aH == bH and aL < bL).
template FieldLessThan() {
    signal input a;
    signal input b;
    signal output out;

    component ab = Num2BitsStrict();
    ab.in <== a;
    component bb = Num2BitsStrict();
    bb.in <== b;

    var aL = 0;
    var aH = 0;
    var bL = 0;
    var bH = 0;
    var e2 = 1;
    for (var i = 0; i < 127; i++) {
        aL += ab.out[i] * e2;
        bL += bb.out[i] * e2;
        aH += ab.out[127 + i] * e2;
        bH += bb.out[127 + i] * e2;
        e2 = e2 + e2;
    }

    component ltL = LessThanBits(127);
    ltL.a <== aL;
    ltL.b <== bL;
    component ltH = LessThanBits(127);
    ltH.a <== aH;
    ltH.b <== bH;
    component eqH = IsZero();
    eqH.in <== aH - bH;

    // ltH and eqH are never both 1, so the sum is boolean.
    signal eqAndLtL;
    eqAndLtL <== eqH.out * ltL.out;
    out <== ltH.out + eqAndLtL;
}

// Asserts a < b as integers in [0, p).
template AssertFieldLessThan() {
    signal input a;
    signal input b;
    component lt = FieldLessThan();
    lt.a <== a;
    lt.b <== b;
    lt.out === 1;
}
