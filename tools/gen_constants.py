#!/usr/bin/env python3
# gen_constants.py: generates src/field/constants.h, every constant of the BLS12-381 field layer.
# Rerun:  python3 tools/gen_constants.py > src/field/constants.h
#
# Everything is derived from the two moduli with Python integers (no third-party modules) and self-checked:
# Montgomery constants (R = 2^(64*N), R^2, R^3, n0 = -m^-1 mod 2^64), exponents used by inversion / sqrt / Legendre,
# the 2-adic roots of unity of Fr for both conventions (bellman 7^t, snarkjs 5^t; checked against the published
# values), and the Frobenius coefficients of the tower Fp2 = Fp[u]/(u^2+1), Fp6 = Fp2[v]/(v^3-(u+1)),
# Fp12 = Fp6[w]/(w^2-v).  Values stored "mont" are a*R mod m; "raw" values are plain little-endian limbs.
import sys

P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
Q = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001  # the scalar field modulus r

# Sanity: the BLS parameter x = -0xd201000000010000 generates both moduli.
X = -0xd201000000010000
assert Q == X**4 - X**2 + 1
assert P == ((X - 1) ** 2 * Q) // 3 + X
assert P % 4 == 3 and P % 6 == 1


def limbs(v, n):
    assert 0 <= v < 1 << (64 * n)
    return [(v >> (64 * i)) & 0xFFFFFFFFFFFFFFFF for i in range(n)]


def init(v, n):
    return "{" + ", ".join("0x%016xULL" % w for w in limbs(v, n)) + "}"


out = []


def emit(name, v, n, comment):
    out.append("/* %s */" % comment)
    out.append("#define %s %s" % (name, init(v, n)))


def field_block(tag, m, n):
    R = 1 << (64 * n)
    T = tag.upper()
    n0 = (-pow(m, -1, 1 << 64)) % (1 << 64)
    emit("CZK__%s_MOD" % T, m, n, "%s modulus" % tag)
    out.append("#define CZK__%s_N0 0x%016xULL /* -m^-1 mod 2^64 */" % (T, n0))
    emit("CZK__%s_ONE" % T, R % m, n, "1 in Montgomery form (R mod m)")
    emit("CZK__%s_R2" % T, R * R % m, n, "R^2 mod m (to Montgomery form)")
    emit("CZK__%s_R3" % T, R * R * R % m, n, "R^3 mod m (fix-up after a plain binary inversion)")
    emit("CZK__%s_TWO64" % T, (1 << 64) * R % m, n, "2^64 in Montgomery form (Horner step of wide reduction)")
    emit("CZK__%s_M_MINUS_2" % T, m - 2, n, "m-2, Fermat inversion exponent (raw)")
    emit("CZK__%s_M_MINUS_1_HALF" % T, (m - 1) // 2, n, "(m-1)/2, Legendre exponent and lexicographic bound (raw)")
    emit("CZK__%s_MINUS_ONE" % T, (m - 1) * R % m, n, "-1 in Montgomery form")
    return R


def mont(v, m, R):
    return v * R % m


Rp = field_block("fp", P, 6)
emit("CZK__FP_P_PLUS_1_QUARTER", (P + 1) // 4, 6, "(p+1)/4, sqrt exponent for p = 3 mod 4 (raw)")
emit("CZK__FP_P_MINUS_3_QUARTER", (P - 3) // 4, 6, "(p-3)/4, Fp2 sqrt (Adj-Rodriguez-Henriquez Alg. 9) (raw)")

Rr = field_block("fr", Q, 4)
S = 0
t = Q - 1
while t % 2 == 0:
    t //= 2
    S += 1
assert S == 32
out.append("#define CZK__FR_TWO_ADICITY %d" % S)
emit("CZK__FR_T", t, 4, "t = (r-1)/2^32, odd (raw)")
emit("CZK__FR_T_MINUS_1_HALF", (t - 1) // 2, 4, "(t-1)/2, Tonelli-Shanks exponent (raw)")
for g in (5, 7):
    assert pow(g, (Q - 1) // 2, Q) == Q - 1, "generator must be a non-residue"
w5 = pow(5, t, Q)
w7 = pow(7, t, Q)
assert w5 == 0x0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f
assert w7 == 0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b
for w in (w5, w7):
    assert pow(w, 1 << 32, Q) == 1 and pow(w, 1 << 31, Q) == Q - 1
emit("CZK__FR_ROOT_BELLMAN", mont(w7, Q, Rr), 4, "7^t, primitive 2^32-th root of unity (bellman), Montgomery")
emit("CZK__FR_ROOT_SNARKJS", mont(w5, Q, Rr), 4, "5^t, primitive 2^32-th root of unity (snarkjs), Montgomery")
emit("CZK__FR_COSET_GEN", mont(7, Q, Rr), 4, "7, the multiplicative generator used for cosets, Montgomery")


# --- Fp2 arithmetic over Python ints for the Frobenius coefficients
def f2mul(a, b):
    return ((a[0] * b[0] - a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P)


def f2pow(a, e):
    r = (1, 0)
    while e:
        if e & 1:
            r = f2mul(r, a)
        a = f2mul(a, a)
        e >>= 1
    return r


XI = (1, 1)  # u + 1


def fp2_init(v):
    return "{{%s}, {%s}}" % (init(mont(v[0], P, Rp), 6), init(mont(v[1], P, Rp), 6))


def fp2_table(name, vals, comment):
    out.append("/* %s */" % comment)
    out.append("#define %s { \\" % name)
    for i, v in enumerate(vals):
        out.append("  %s%s \\" % (fp2_init(v), "," if i + 1 < len(vals) else ""))
    out.append("}")


g6_1 = []
g6_2 = []
for k in range(6):
    e = (P**k - 1)
    assert e % 3 == 0
    g6_1.append(f2pow(XI, e // 3))
    g6_2.append(f2pow(XI, 2 * e // 3))
g12 = []
for k in range(12):
    e = (P**k - 1)
    assert e % 6 == 0
    g12.append(f2pow(XI, e // 6))
# Checks: v^(p^k) = g6_1[k] * v, and w^(p^k) = g12[k] * w; g12[k]^2 = g6_1[k] (w^2 = v).
for k in range(12):
    assert f2mul(g12[k], g12[k]) == g6_1[k % 6]
for k in range(6):
    assert f2mul(g6_1[k], g6_1[k]) == g6_2[k]
fp2_table("CZK__FP6_FROB_C1", g6_1, "Fp6 Frobenius: v^(p^k) = FROB_C1[k] * v, (u+1)^((p^k-1)/3), k = 0..5, Montgomery")
fp2_table("CZK__FP6_FROB_C2", g6_2, "Fp6 Frobenius: v^(2p^k) = FROB_C2[k] * v^2, (u+1)^(2(p^k-1)/3), Montgomery")
fp2_table("CZK__FP12_FROB_C1", g12, "Fp12 Frobenius: w^(p^k) = FROB_C1[k] * w, (u+1)^((p^k-1)/6), k = 0..11, Montgomery")

hdr = [
    "/* constants.h: GENERATED by tools/gen_constants.py -- do not edit.",
    " * Rerun:  python3 tools/gen_constants.py > src/field/constants.h",
    " *",
    " * BLS12-381 field constants as initializers of little-endian 64-bit limb arrays. \"Montgomery\" values are a*R mod m",
    " * (R = 2^384 for Fp, 2^256 for Fr); \"raw\" values are plain integers (exponents, bounds). Internal to src/field. */",
    "#ifndef CZK_FIELD_CONSTANTS_H",
    "#define CZK_FIELD_CONSTANTS_H",
    "",
]
sys.stdout.write("\n".join(hdr + out + ["", "#endif", ""]))
