pragma circom 2.1.0;

// mix: a toy permutation (x^5 S-boxes over a width-3 state with a dense 3x3 mixing matrix of large constants),
// domain 2^10 with --prime bls12381. Only outputs are public (nPubIn = 0): out[0..3].
// Each round: 3 S-boxes (3 constraints each: x2 = x*x, x4 = x2*x2, x5 = x4*x), then a linear layer folded into the
// next round's LCs, so A/B/C rows carry 3-4 term combinations with large coefficients.
template Mix(ROUNDS) {
    signal input seed[3];
    signal output out[4];

    var C[3][3] = [
        [0x1f2e3d4c5b6a79880102030405060708090a0b0c0d0e0f101112131415161718, 2, 3],
        [5, 0x6a5b4c3d2e1f00112233445566778899aabbccddeeff00112233445566778899, 11],
        [13, 17, 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfefffffffe00000001]
    ];
    signal s[ROUNDS + 1][3];
    signal x2[ROUNDS][3];
    signal x4[ROUNDS][3];
    signal x5[ROUNDS][3];
    for (var t = 0; t < 3; t++) s[0][t] <== seed[t] + t;
    for (var r = 0; r < ROUNDS; r++) {
        for (var t = 0; t < 3; t++) {
            x2[r][t] <== (s[r][t] + r * 3 + t) * (s[r][t] + r * 3 + t);
            x4[r][t] <== x2[r][t] * x2[r][t];
            x5[r][t] <== x4[r][t] * (s[r][t] + r * 3 + t);
        }
        for (var t = 0; t < 3; t++) {
            s[r + 1][t] <== C[t][0] * x5[r][0] + C[t][1] * x5[r][1] + C[t][2] * x5[r][2];
        }
    }
    out[0] <== s[ROUNDS][0];
    out[1] <== s[ROUNDS][1];
    out[2] <== s[ROUNDS][2];
    out[3] <== s[ROUNDS][0] * s[ROUNDS][1];
}

component main = Mix(80);
