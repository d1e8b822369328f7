pragma circom 2.1.0;

// chain: a multiplication chain with several public inputs and outputs (domain 2^8 with --prime bls12381).
// Public: out[0..2] (outputs) then a, b, k[0..3] (inputs). Private: x[0..NX-1].
// Exercises: public inputs that enter A/B/C, constants in every LC, a wire computed with <-- that no constraint
// uses (an unused witness wire), and squares (the same wire in A and B).
template Chain(NX) {
    signal input a;
    signal input b;
    signal input k[4];
    signal input x[NX];
    signal output out[3];

    signal acc[NX + 1];
    signal sq[NX];
    signal unused;
    acc[0] <== a + 3 * b + 7;
    for (var i = 0; i < NX; i++) {
        sq[i] <== x[i] * x[i];
        acc[i + 1] <== (acc[i] + k[i % 4]) * (sq[i] - x[i] + i + 1);
    }
    unused <-- a * b * 1234567;
    signal t;
    t <== a * b;
    out[0] <== acc[NX];
    out[1] <== t * (k[0] + k[1] + k[2] + k[3] - 5);
    out[2] <== acc[NX \ 2] * 2 - b;
}

component main {public [a, b, k]} = Chain(118);
