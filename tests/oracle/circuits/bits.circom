pragma circom 2.1.0;

// bits: bit decompositions with large linear combinations (domain 2^9 with --prime bls12381).
// Each public input is split into NB bits (NB boolean constraints plus one linear constraint with NB+1 terms);
// a weighted sum with large coefficients recombines all bits into the output. A private input that no constraint
// touches gives an unused wire.
template Bits(NIN, NB) {
    signal input in[NIN];
    signal input spare;          // never constrained: an unused wire
    signal output weighted;
    signal output parity;

    signal bit[NIN][NB];
    var w = 0;
    var par = 0;
    for (var j = 0; j < NIN; j++) {
        var lc = 0;
        var e = 1;
        for (var i = 0; i < NB; i++) {
            bit[j][i] <-- (in[j] >> i) & 1;
            bit[j][i] * (bit[j][i] - 1) === 0;
            lc += bit[j][i] * e;
            e = e + e;
            // large, distinct coefficients (near r/2 and beyond)
            w += bit[j][i] * (0x39f6d3a994cebea4199cec0404d0ec02a9ded2017fff2dff7fffffff80000000 + 1000003 * i + 7919 * j);
        }
        lc === in[j];
        par += bit[j][0];
    }
    weighted <== w;
    parity <== par * par;
}

component main {public [in]} = Bits(3, 120);
