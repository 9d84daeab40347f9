// Poseidon2 over BN254, t = 3 (reference/crypto.md §4; the node's src/crypto/poseidon2/reference.ts).
//
//   S-box x^5; one external linear layer before the first round; 4 full rounds (add 3 constants, x^5 on
//   all lanes, external layer); 56 partial rounds (add a constant to lane 0, x^5 on lane 0, internal
//   layer); 4 full rounds.
//   External matrix circ(2, 1, 1): out_i = x_i + (x_0 + x_1 + x_2).
//   Internal matrix diag(1, 1, 2) + J: out_i = d_i * x_i + (x_0 + x_1 + x_2), d = [1, 1, 2].
//
// R1CS shape: the linear layers are carried as linear expressions in circom vars and cost nothing. Every
// S-box input is materialised as ONE signal (x <== lane + constant), then x2 = x*x, x4 = x2*x2,
// y = x4*x: 3 quadratic constraints per S-box, each row with single-term A, B and C, so 80 S-boxes
// (8*3 + 56) give 240 constraints per permutation.
pragma circom 2.0.0;

include "poseidon2_constants.circom";

// y = x^5 with 3 sparse constraints.
template Poseidon2Sbox() {
    signal input in;
    signal output out;
    signal x2;
    signal x4;
    x2 <== in * in;
    x4 <== x2 * x2;
    out <== x4 * in;
}

// The permutation on the state in[0..2].
template Poseidon2Perm() {
    signal input in[3];
    signal output out[3];

    var RC[80] = POSEIDON2_RC();
    var HALF_FULL = 4;
    var PARTIAL = 56;

    // S-box inputs (one signal each) and S-box components.
    signal fx[2 * HALF_FULL][3];
    component fs[2 * HALF_FULL][3];
    signal px[PARTIAL];
    component ps[PARTIAL];

    var s[3];
    var sum;

    // Initial external layer.
    sum = in[0] + in[1] + in[2];
    for (var i = 0; i < 3; i++) {
        s[i] = in[i] + sum;
    }

    // First half of the full rounds.
    for (var r = 0; r < HALF_FULL; r++) {
        for (var i = 0; i < 3; i++) {
            fx[r][i] <== s[i] + RC[3 * r + i];
            fs[r][i] = Poseidon2Sbox();
            fs[r][i].in <== fx[r][i];
        }
        sum = fs[r][0].out + fs[r][1].out + fs[r][2].out;
        for (var i = 0; i < 3; i++) {
            s[i] = fs[r][i].out + sum;
        }
    }

    // Partial rounds: S-box on lane 0 only, then the internal layer.
    for (var r = 0; r < PARTIAL; r++) {
        px[r] <== s[0] + RC[3 * HALF_FULL + r];
        ps[r] = Poseidon2Sbox();
        ps[r].in <== px[r];
        sum = ps[r].out + s[1] + s[2];
        s[0] = ps[r].out + sum;
        s[1] = s[1] + sum;
        s[2] = 2 * s[2] + sum;
    }

    // Second half of the full rounds.
    for (var r = 0; r < HALF_FULL; r++) {
        var base = 3 * HALF_FULL + PARTIAL + 3 * r;
        for (var i = 0; i < 3; i++) {
            fx[HALF_FULL + r][i] <== s[i] + RC[base + i];
            fs[HALF_FULL + r][i] = Poseidon2Sbox();
            fs[HALF_FULL + r][i].in <== fx[HALF_FULL + r][i];
        }
        sum = fs[HALF_FULL + r][0].out + fs[HALF_FULL + r][1].out + fs[HALF_FULL + r][2].out;
        for (var i = 0; i < 3; i++) {
            s[i] = fs[HALF_FULL + r][i].out + sum;
        }
    }

    for (var i = 0; i < 3; i++) {
        out[i] <== s[i];
    }
}

// Two-to-one compression: perm([l, r, 0])[0] (Merkle nodes, pk = compress(KDF, sk)).
template Poseidon2Compress() {
    signal input l;
    signal input r;
    signal output out;
    component p = Poseidon2Perm();
    p.in[0] <== l;
    p.in[1] <== r;
    p.in[2] <== 0;
    out <== p.out[0];
}

// Sponge hash of n inputs: s = [0, 0, 0]; for each x: s[0] += x, s = perm(s); then s[0] += 1,
// s = perm(s); out = s[0].
template Poseidon2Digest(n) {
    signal input in[n];
    signal output out;
    component p[n + 1];
    for (var k = 0; k <= n; k++) {
        p[k] = Poseidon2Perm();
        var absorbed = k < n ? in[k] : 1;
        if (k == 0) {
            p[k].in[0] <== absorbed;
            p[k].in[1] <== 0;
            p[k].in[2] <== 0;
        } else {
            p[k].in[0] <== p[k - 1].out[0] + absorbed;
            p[k].in[1] <== p[k - 1].out[1];
            p[k].in[2] <== p[k - 1].out[2];
        }
    }
    out <== p[n].out[0];
}
