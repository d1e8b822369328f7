#!/usr/bin/env python3
# gen_constants.py: the one generator of czk's constants, host and device:
#   src/field/constants.h    every constant of the BLS12-381 field layer (64-bit limbs),
#   src/field/mont_x86_64.c  the mulx/adcx/adox Montgomery multiplications (see gen_asm below),
#   src/curve/constants.h    curve constants (generators, b, beta, psi) in Montgomery form, checked with an affine
#                            reference below,
#   src/cuda/constants.cuh   the device constants of the CUDA layer (32-bit limbs), from the same integers.
# Rerun:  python3 tools/gen_constants.py            (rewrites the four files)
#         python3 tools/gen_constants.py --check    (exit 1 when a committed file differs: the CTest test_constants)
#
# Everything is derived from the two moduli with Python integers (no third-party modules) and self-checked:
# Montgomery constants (R = 2^(64*N), R^2, R^3, n0 = -m^-1 mod 2^64), exponents used by inversion / sqrt / Legendre,
# the 2-adic roots of unity of Fr for both conventions (bellman 7^t, snarkjs 5^t; checked against the published
# values), and the Frobenius coefficients of the tower Fp2 = Fp[u]/(u^2+1), Fp6 = Fp2[v]/(v^3-(u+1)),
# Fp12 = Fp6[w]/(w^2-v), and the safegcd inversion constants (signed-62 modulus, m^-1 mod 2^62, batch count).
# Values stored "mont" are a*R mod m; "raw" values are plain little-endian limbs.
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
    safegcd_block(T, m, n, R)
    return R


def s62(v, L):
    """v >= 0 as L signed-62 limbs (little-endian, each in [0, 2^62))."""
    assert 0 <= v < 1 << (62 * L - 1)
    return [(v >> (62 * i)) & ((1 << 62) - 1) for i in range(L)]


def safegcd_block(T, m, n, R):
    # Bernstein-Yang inversion (src/field/safegcd.h): the modulus in signed-62 limbs, m^-1 mod 2^62, R^2 mod m
    # (the start value e that makes the output Montgomery) and the number of 62-step batches. The hddivsteps bound
    # for 0 <= g <= f <= M is floor((3787 log2(M) + 2166) / 1644) (github.com/sipa/safegcd-bounds, checked by
    # computer for all M <= 2^3805).
    L = (m.bit_length() + 1 + 61) // 62
    import math
    lg = math.log2(m)
    lo = (3787 * lg + 2166) / 1644
    assert abs(lo - round(lo)) > 1e-3  # far from an integer boundary: the float floor is exact
    steps = int(lo)
    batches = (steps + 61) // 62
    out.append("/* %s for Bernstein-Yang inversion: %d signed-62 limbs; hddivsteps bound %d -> %d batches of 62 */"
               % (T.lower(), L, steps, batches))
    out.append("#define CZK__%s_SG_LIMBS %d" % (T, L))
    out.append("#define CZK__%s_SG_BATCHES %d" % (T, batches))
    out.append("#define CZK__%s_SG_MOD {%s}" % (T, ", ".join("0x%016xLL" % w for w in s62(m, L))))
    out.append("#define CZK__%s_SG_MINV 0x%016xULL /* m^-1 mod 2^62 */" % (T, pow(m, -1, 1 << 62)))
    out.append("#define CZK__%s_SG_R2 {%s} /* R^2 mod m */" % (T, ", ".join("0x%016xLL" % w for w in s62(R * R % m, L))))


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
    " * Rerun:  python3 tools/gen_constants.py",
    " *",
    " * BLS12-381 field constants as initializers of little-endian 64-bit limb arrays. \"Montgomery\" values are a*R mod m",
    " * (R = 2^384 for Fp, 2^256 for Fr); \"raw\" values are plain integers (exponents, bounds). Internal to src/field. */",
    "#ifndef CZK_FIELD_CONSTANTS_H",
    "#define CZK_FIELD_CONSTANTS_H",
    "",
]
FIELD_H = "\n".join(hdr + out + ["", "#endif", ""])


# ---------------------------------------------------------------------------------------------------------------
# x86-64 BMI2+ADX Montgomery multiplication (mulx / adcx / adox), written to src/field/mont_x86_64.c when the
# script runs:  python3 tools/gen_constants.py
def gen_asm():
    def fn(name, m, n):
        n0 = (-pow(m, -1, 1 << 64)) % (1 << 64)
        L = []
        lab_p = "%s_p" % name
        lab_n0 = "%s_n0" % name
        e = L.append
        e('".text\\n"')
        e('".p2align 4\\n"')
        e('".globl %s\\n"' % name)
        e('".hidden %s\\n"' % name)
        e('".type %s, @function\\n"' % name)
        e('"%s:\\n"' % name)
        for r in ("rbx", "rbp", "r12", "r13", "r14", "r15"):
            e('"  pushq %%%s\\n"' % r)
        e('"  movq %rdx, %rcx\\n"')  # b pointer
        t = ["%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14"][: n + 1]
        h = ["%rbx", "%rbp"]

        def P(j):
            return "%d+%s(%%rip)" % (8 * j, lab_p)

        for i in range(n):
            if i == 0:
                # t = a * b[0]  (one carry chain)
                e('"  movq (%rcx), %rdx\\n"')
                e('"  mulxq (%%rsi), %s, %s\\n"' % (t[0], t[1]))
                for j in range(1, n):
                    e('"  mulxq %d(%%rsi), %%rax, %s\\n"' % (8 * j, t[j + 1]))
                    e('"  %s %%rax, %s\\n"' % ("addq" if j == 1 else "adcq", t[j]))
                e('"  adcq $0, %s\\n"' % t[n])
            else:
                # t += a * b[i]: low halves on the OF chain, high halves on the CF chain
                e('"  movq %d(%%rcx), %%rdx\\n"' % (8 * i))
                e('"  xorl %eax, %eax\\n"')
                e('"  mulxq (%%rsi), %%rax, %s\\n"' % h[0])
                e('"  adoxq %%rax, %s\\n"' % t[0])
                for j in range(1, n):
                    hi = t[n] if j == n - 1 else h[j % 2]
                    e('"  mulxq %d(%%rsi), %%rax, %s\\n"' % (8 * j, hi))
                    e('"  adoxq %%rax, %s\\n"' % t[j])
                    e('"  adcxq %s, %s\\n"' % (h[(j - 1) % 2], t[j]))
                e('"  movl $0, %eax\\n"')
                e('"  adoxq %%rax, %s\\n"' % t[n])
                e('"  adcxq %%rax, %s\\n"' % t[n])
            # reduction: q = t0 * n0; t = (t + q*m) / 2^64
            e('"  movq %s, %%rdx\\n"' % t[0])
            e('"  imulq %s(%%rip), %%rdx\\n"' % lab_n0)
            e('"  xorl %eax, %eax\\n"')
            e('"  mulxq %s, %%rax, %s\\n"' % (P(0), h[0]))
            e('"  adcxq %s, %%rax\\n"' % t[0])
            for j in range(1, n):
                e('"  mulxq %s, %%rax, %s\\n"' % (P(j), h[j % 2]))
                e('"  adcxq %%rax, %s\\n"' % t[j])
                e('"  adoxq %s, %s\\n"' % (h[(j - 1) % 2], t[j]))
            e('"  movl $0, %eax\\n"')
            e('"  adcxq %%rax, %s\\n"' % t[n])
            e('"  adoxq %s, %s\\n"' % (h[(n - 1) % 2], t[n]))
            t = t[1:] + t[:1]  # rotate: t1..tn become t0..t(n-1); the old t0 (now 0) is the next top word
        # final conditional subtraction: r = t - m unless that borrows
        s = ["%rax", "%rdx", "%rbx", "%rbp", "%rcx", "%rsi"][:n]
        for j in range(n):
            e('"  movq %s, %s\\n"' % (t[j], s[j]))
            e('"  %s %s, %s\\n"' % ("subq" if j == 0 else "sbbq", P(j), s[j]))
        for j in range(n):
            e('"  cmovcq %s, %s\\n"' % (t[j], s[j]))
        for j in range(n):
            e('"  movq %s, %d(%%rdi)\\n"' % (s[j], 8 * j))
        for r in ("r15", "r14", "r13", "r12", "rbp", "rbx"):
            e('"  popq %%%s\\n"' % r)
        e('"  ret\\n"')
        e('".size %s, .-%s\\n"' % (name, name))
        e('".section .rodata\\n"')
        e('".p2align 3\\n"')
        e('"%s:\\n"' % lab_p)
        for w in limbs(m, n):
            e('"  .quad 0x%016x\\n"' % w)
        e('"%s:\\n"' % lab_n0)
        e('"  .quad 0x%016x\\n"' % n0)
        e('".text\\n"')
        return L

    def prologue(L, name):
        e = L.append
        e('".text\\n"')
        e('".p2align 4\\n"')
        e('".globl %s\\n"' % name)
        e('".hidden %s\\n"' % name)
        e('".type %s, @function\\n"' % name)
        e('"%s:\\n"' % name)
        for r in ("rbx", "rbp", "r12", "r13", "r14", "r15"):
            e('"  pushq %%%s\\n"' % r)

    def epilogue(L, name):
        e = L.append
        for r in ("r15", "r14", "r13", "r12", "rbp", "rbx"):
            e('"  popq %%%s\\n"' % r)
        e('"  ret\\n"')
        e('".size %s, .-%s\\n"' % (name, name))

    def fn_mulw(name, n):
        # r[2n] = a[n] * b[n], schoolbook rows: t += a*b[i] (low halves on OF, high halves on CF), then the lowest
        # word of t is final and stored; n^2 mulx. SysV: f(uint64_t r[2n], const uint64_t a[n], const uint64_t b[n]);
        # r must not alias a or b (it is written row by row).
        L = []
        e = L.append
        prologue(L, name)
        e('"  movq %rdx, %rcx\\n"')
        t = ["%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14"][: n + 1]
        h = ["%rbx", "%rbp"]
        for i in range(n):
            if i == 0:
                e('"  movq (%rcx), %rdx\\n"')
                e('"  mulxq (%%rsi), %s, %s\\n"' % (t[0], t[1]))
                for j in range(1, n):
                    e('"  mulxq %d(%%rsi), %%rax, %s\\n"' % (8 * j, t[j + 1]))
                    e('"  %s %%rax, %s\\n"' % ("addq" if j == 1 else "adcq", t[j]))
                e('"  adcq $0, %s\\n"' % t[n])
            else:
                e('"  movq %d(%%rcx), %%rdx\\n"' % (8 * i))
                e('"  xorl %eax, %eax\\n"')
                e('"  mulxq (%%rsi), %%rax, %s\\n"' % h[0])
                e('"  adoxq %%rax, %s\\n"' % t[0])
                for j in range(1, n):
                    hi = t[n] if j == n - 1 else h[j % 2]
                    e('"  mulxq %d(%%rsi), %%rax, %s\\n"' % (8 * j, hi))
                    e('"  adoxq %%rax, %s\\n"' % t[j])
                    e('"  adcxq %s, %s\\n"' % (h[(j - 1) % 2], t[j]))
                e('"  movl $0, %eax\\n"')
                e('"  adoxq %%rax, %s\\n"' % t[n])
                e('"  adcxq %%rax, %s\\n"' % t[n])
            e('"  movq %s, %d(%%rdi)\\n"' % (t[0], 8 * i))
            t = t[1:] + t[:1]
        for j in range(n):
            e('"  movq %s, %d(%%rdi)\\n"' % (t[j], 8 * (n + j)))
        epilogue(L, name)
        return L

    def fn_redc(name, m, n):
        # r[n] = w * 2^(-64n) mod m for w[2n] < m * 2^(64n), fully reduced. The n reduction steps run on the low half
        # only: (w_lo + q m) / 2^(64n) < m + 1 needs no extra word; then + w_hi (< m) and one masked subtraction.
        # n^2 + n multiplications. SysV: f(uint64_t r[n], const uint64_t w[2n]); r may alias w.
        n0 = (-pow(m, -1, 1 << 64)) % (1 << 64)
        L = []
        e = L.append
        lab_p = "%s_p" % name
        lab_n0 = "%s_n0" % name

        def Pm(j):
            return "%d+%s(%%rip)" % (8 * j, lab_p)

        prologue(L, name)
        t = ["%r8", "%r9", "%r10", "%r11", "%r12", "%r13"][:n]
        h = ["%rbx", "%rbp"]
        for j in range(n):
            e('"  movq %d(%%rsi), %s\\n"' % (8 * j, t[j]))
        for i in range(n):
            e('"  movq %s, %%rdx\\n"' % t[0])
            e('"  imulq %s(%%rip), %%rdx\\n"' % lab_n0)
            e('"  xorl %eax, %eax\\n"')
            e('"  mulxq %s, %%rax, %s\\n"' % (Pm(0), h[0]))
            e('"  adcxq %s, %%rax\\n"' % t[0])  # low word becomes 0; CF = carry
            for j in range(1, n):
                e('"  mulxq %s, %%rax, %s\\n"' % (Pm(j), h[j % 2]))
                e('"  adcxq %%rax, %s\\n"' % t[j])
                e('"  adoxq %s, %s\\n"' % (h[(j - 1) % 2], t[j]))
            # new top word: last high half + both carries (the old t0 register is free)
            e('"  movl $0, %eax\\n"')
            e('"  movq %s, %s\\n"' % (h[(n - 1) % 2], t[0]))
            e('"  adcxq %%rax, %s\\n"' % t[0])
            e('"  adoxq %%rax, %s\\n"' % t[0])
            t = t[1:] + t[:1]
        # + w_hi
        for j in range(n):
            e('"  %s %d(%%rsi), %s\\n"' % ("addq" if j == 0 else "adcq", 8 * (n + j), t[j]))
        s = ["%rax", "%rdx", "%rbx", "%rbp", "%rcx", "%r14"][:n]
        for j in range(n):
            e('"  movq %s, %s\\n"' % (t[j], s[j]))
            e('"  %s %s, %s\\n"' % ("subq" if j == 0 else "sbbq", Pm(j), s[j]))
        for j in range(n):
            e('"  cmovcq %s, %s\\n"' % (t[j], s[j]))
        for j in range(n):
            e('"  movq %s, %d(%%rdi)\\n"' % (s[j], 8 * j))
        epilogue(L, name)
        e('".section .rodata\\n"')
        e('".p2align 3\\n"')
        e('"%s:\\n"' % lab_p)
        for w in limbs(m, n):
            e('"  .quad 0x%016x\\n"' % w)
        e('"%s:\\n"' % lab_n0)
        e('"  .quad 0x%016x\\n"' % n0)
        e('".text\\n"')
        return L

    def fn_redc2(name, m):
        # Two independent Montgomery reductions (6 limbs), interleaved step by step so that their serial chains
        # (q_i depends on the previous step) overlap: r0 = redc(w0), r1 = redc(w1), as fn_redc. One high-half
        # register per chain suffices by adding the previous high half (OF chain) before the next mulx overwrites
        # it. SysV: f(uint64_t r0[6], const uint64_t w0[12], uint64_t r1[6], const uint64_t w1[12]); r_k may alias w_k.
        n = 6
        n0 = (-pow(m, -1, 1 << 64)) % (1 << 64)
        L = []
        e = L.append
        lab_p = "%s_p" % name
        lab_n0 = "%s_n0" % name

        def Pm(j):
            return "%d+%s(%%rip)" % (8 * j, lab_p)

        prologue(L, name)
        e('"  subq $88, %rsp\\n"')
        for k, r in enumerate(("rdi", "rsi", "rdx", "rcx")):
            e('"  movq %%%s, %d(%%rsp)\\n"' % (r, 8 * k))
        A = ["%r8", "%r9", "%r10", "%r11", "%r12", "%r13"]
        B = ["%r14", "%r15", "%rbx", "%rbp", "%rsi", "%rdi"]
        for j in range(n):
            e('"  movq %d(%%rsi), %s\\n"' % (8 * j, A[j]))
        for j in range(n):
            e('"  movq %d(%%rcx), %s\\n"' % (8 * j, B[j]))

        def step(t):
            e('"  movq %s, %%rdx\\n"' % t[0])
            e('"  imulq %s(%%rip), %%rdx\\n"' % lab_n0)
            e('"  xorl %eax, %eax\\n"')
            e('"  mulxq %s, %%rax, %%rcx\\n"' % Pm(0))
            e('"  adcxq %s, %%rax\\n"' % t[0])
            for j in range(1, n):
                e('"  adoxq %%rcx, %s\\n"' % t[j])
                e('"  mulxq %s, %%rax, %%rcx\\n"' % Pm(j))
                e('"  adcxq %%rax, %s\\n"' % t[j])
            e('"  movl $0, %eax\\n"')
            e('"  adcxq %rax, %rcx\\n"')
            e('"  adoxq %rax, %rcx\\n"')
            e('"  movq %%rcx, %s\\n"' % t[0])
            return t[1:] + t[:1]

        for i in range(n):
            A = step(A)
            B = step(B)
        for j in range(n):  # spill chain B
            e('"  movq %s, %d(%%rsp)\\n"' % (B[j], 32 + 8 * j))

        def finish(t, tmp, wslot, rslot):
            e('"  movq %d(%%rsp), %%rax\\n"' % wslot)
            for j in range(n):
                e('"  %s %d(%%rax), %s\\n"' % ("addq" if j == 0 else "adcq", 8 * (n + j), t[j]))
            for j in range(n):
                e('"  movq %s, %s\\n"' % (t[j], tmp[j]))
                e('"  %s %s, %s\\n"' % ("subq" if j == 0 else "sbbq", Pm(j), tmp[j]))
            for j in range(n):
                e('"  cmovcq %s, %s\\n"' % (t[j], tmp[j]))
            e('"  movq %d(%%rsp), %%rax\\n"' % rslot)
            for j in range(n):
                e('"  movq %s, %d(%%rax)\\n"' % (tmp[j], 8 * j))

        tmp = ["%r14", "%r15", "%rbx", "%rbp", "%rsi", "%rdi"]
        finish(A, tmp, 8, 0)
        Bl = ["%r8", "%r9", "%r10", "%r11", "%r12", "%r13"]
        for j in range(n):
            e('"  movq %d(%%rsp), %s\\n"' % (32 + 8 * j, Bl[j]))
        finish(Bl, tmp, 24, 16)
        e('"  addq $88, %rsp\\n"')
        epilogue(L, name)
        e('".section .rodata\\n"')
        e('".p2align 3\\n"')
        e('"%s:\\n"' % lab_p)
        for w in limbs(m, n):
            e('"  .quad 0x%016x\\n"' % w)
        e('"%s:\\n"' % lab_n0)
        e('"  .quad 0x%016x\\n"' % n0)
        e('".text\\n"')
        return L

    body = fn("czk__fp_mul_adx", P, 6) + fn("czk__fr_mul_adx", Q, 4)
    body += fn_mulw("czk__fp_mulw_adx", 6) + fn_redc("czk__fp_redc_adx", P, 6) + fn_redc2("czk__fp_redc2_adx", P)
    lines = [
        "/* mont_x86_64.c: GENERATED by tools/gen_constants.py -- do not edit.",
        " * Rerun:  python3 tools/gen_constants.py",
        " *",
        " * Montgomery multiplication for Fp (6 limbs) and Fr (4 limbs) with BMI2 mulx and ADX adcx/adox: the same",
        " * no-carry CIOS as mont.h (for i < N: t += a*b[i] with the low product halves on the OF chain and the high",
        " * halves on the CF chain; q = t0*n0; t = (t + q*m)/2^64 with two chains again), registers renamed per round",
        " * instead of moved, then one masked (cmov) subtraction of m. 2N^2 + N mulx, no branches, no secret-dependent",
        " * memory access. SysV ABI: void f(uint64_t r[N], const uint64_t a[N], const uint64_t b[N]); r may alias a or b",
        " * (written last). Used only when the CPU reports BMI2 and ADX (czk__field_adx, set at load time; the portable",
        " * C path of mont.h stays the reference and is tested against it).",
        " * Also for the lazily reduced tower (fp2.c, fp12.c): czk__fp_mulw_adx, the 12-limb product a*b (36 mulx), and",
        " * czk__fp_redc_adx, Montgomery reduction of a 12-limb w < p*2^384 (reduction steps on the low half, which",
        " * stays below 2^384, then + high half and one masked subtraction; 42 multiplications), and czk__fp_redc2_adx,",
        " * two independent reductions interleaved step by step (their serial q_i chains overlap). */",
        "#include \"field/field_internal.h\"",
        "",
        "#if CZK__FIELD_ASM",
        "#include <cpuid.h>",
        "#include <stdlib.h>",
        "",
        "__asm__(",
    ]
    lines += ["    " + x for x in body]
    lines += [
        ");",
        "",
        "int czk__field_adx;",
        "",
        "/* BMI2 (mulx) and ADX (adcx/adox): CPUID leaf 7, sub-leaf 0, EBX bits 8 and 19 (read directly: clang's",
        " * __builtin_cpu_supports knows no \"adx\"). */",
        "static bool cpu_has_bmi2_adx(void) {",
        "  unsigned a, b, c, d;",
        "  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;",
        "  return (b >> 8 & 1) && (b >> 19 & 1);",
        "}",
        "",
        "/* CZK_FIELD_PORTABLE=1 in the environment forces the portable C path. */",
        "__attribute__((constructor)) static void czk__field_detect(void) {",
        "  const char *env = getenv(\"CZK_FIELD_PORTABLE\");",
        "  bool off = env && env[0] && env[0] != '0';",
        "  czk__field_adx = !off && cpu_has_bmi2_adx();",
        "}",
        "",
        "bool czk__field_set_adx(bool on) {",
        "  bool avail = cpu_has_bmi2_adx();",
        "  czk__field_adx = on && avail;",
        "  return czk__field_adx != 0;",
        "}",
        "#else",
        "bool czk__field_set_adx(bool on) {",
        "  (void)on;",
        "  return false;",
        "}",
        "#endif",
        "",
    ]
    return "\n".join(lines)




# ---------------------------------------------------------------------------------------------------------------
# Curve constants (src/curve/constants.h), each checked with a small affine reference (pure Python integers): the
# generators are on their curves and of order r, the cube root of unity beta satisfies sigma(G1) = -x^2 G1 with
# sigma(x, y) = (beta x, y), and psi(G2) = x G2 with psi(x, y) = (conj(x) cx, conj(y) cy).
Z = 0xd201000000010000  # x = -Z
RM = 1 << 384
# ---------------------------------------------------------------- Fp2 helpers (u^2 = -1), elements as (c0, c1)
def cf2(a, b=0): return (a % P, b % P)
def cf2add(a, b): return ((a[0] + b[0]) % P, (a[1] + b[1]) % P)
def cf2sub(a, b): return ((a[0] - b[0]) % P, (a[1] - b[1]) % P)
def cf2mul(a, b): return ((a[0] * b[0] - a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P)
def cf2inv(a):
    n = pow(a[0] * a[0] + a[1] * a[1], P - 2, P)
    return (a[0] * n % P, -a[1] * n % P)
def cf2pow(a, e):
    r = (1, 0)
    while e:
        if e & 1: r = cf2mul(r, a)
        a = cf2mul(a, a)
        e >>= 1
    return r
def cf2conj(a): return (a[0], (-a[1]) % P)

# ---------------------------------------------------------------- generic affine arithmetic over a field given by ops
class Fld:
    def __init__(s, add, sub, mul, inv, zero, one, from_int):
        s.add, s.sub, s.mul, s.inv, s.zero, s.one, s.k = add, sub, mul, inv, zero, one, from_int

FP = Fld(lambda a, b: (a + b) % P, lambda a, b: (a - b) % P, lambda a, b: a * b % P,
         lambda a: pow(a, P - 2, P), 0, 1, lambda n: n % P)
FP2 = Fld(cf2add, cf2sub, cf2mul, cf2inv, (0, 0), (1, 0), lambda n: cf2(n))

def ec_add(F, p, q):
    if p is None: return q
    if q is None: return p
    if p[0] == q[0]:
        if F.add(p[1], q[1]) == F.zero: return None
        lam = F.mul(F.mul(F.k(3), F.mul(p[0], p[0])), F.inv(F.add(p[1], p[1])))
    else:
        lam = F.mul(F.sub(q[1], p[1]), F.inv(F.sub(q[0], p[0])))
    x3 = F.sub(F.sub(F.mul(lam, lam), p[0]), q[0])
    return (x3, F.sub(F.mul(lam, F.sub(p[0], x3)), p[1]))

def ec_neg(F, p): return None if p is None else (p[0], F.sub(F.zero, p[1]))

def ec_mul(F, p, k):
    if k < 0: return ec_mul(F, ec_neg(F, p), -k)
    r = None
    while k:
        if k & 1: r = ec_add(F, r, p)
        p = ec_add(F, p, p)
        k >>= 1
    return r

def on_curve(F, p, b):
    return p is None or F.mul(p[1], p[1]) == F.add(F.mul(F.mul(p[0], p[0]), p[0]), b)

# ---------------------------------------------------------------- constants
G1 = (0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb,
      0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1)
G2 = ((0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8,
       0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e),
      (0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801,
       0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be))
B1 = 4
B2 = (4, 4)  # 4(u + 1)

assert P % 3 == 1 and (X - 1) ** 2 % 3 == 0
assert on_curve(FP, G1, B1) and on_curve(FP2, G2, B2)
assert ec_mul(FP, G1, Q) is None and ec_mul(FP2, G2, Q) is None

# beta: a primitive cube root of unity in Fp with sigma(G1) = -x^2 G1
g = 2
while pow(g, (P - 1) // 3, P) == 1: g += 1
cands = [pow(g, (P - 1) // 3, P), pow(g, 2 * (P - 1) // 3, P)]
target = ec_mul(FP, G1, -(X * X))
BETA = [b for b in cands if (b * G1[0] % P, G1[1]) == target]
assert len(BETA) == 1
BETA = BETA[0]

# psi on the M-type twist: psi(x, y) = (conj(x) * cx, conj(y) * cy), cx = 1/(u+1)^((p-1)/3), cy = 1/(u+1)^((p-1)/2)
xi = (1, 1)
PSI_CX = cf2inv(cf2pow(xi, (P - 1) // 3))
PSI_CY = cf2inv(cf2pow(xi, (P - 1) // 2))
psiG2 = (cf2mul(cf2conj(G2[0]), PSI_CX), cf2mul(cf2conj(G2[1]), PSI_CY))
assert psiG2 == ec_mul(FP2, G2, X), "psi(G2) != x G2"

def cfp_init(v):
    return "{{" + ", ".join("0x%016xULL" % l for l in limbs(v * RM % P, 6)) + "}}"

def cfp2_init(v):
    return "{" + cfp_init(v[0]) + ", " + cfp_init(v[1]) + "}"

cout = []
w = cout.append
w("/* constants.h: GENERATED by tools/gen_constants.py -- do not edit.")
w(" * Rerun:  python3 tools/gen_constants.py")
w(" *")
w(" * Curve constants as czk_fp / czk_fp2 initializers in Montgomery form (a * 2^384 mod p, little-endian limbs);")
w(" * the script checks each one with an independent affine reference before printing it. Internal to src/curve. */")
w("#ifndef CZK_CURVE_CONSTANTS_H")
w("#define CZK_CURVE_CONSTANTS_H")
w("")
w("/* G1 generator (x, y) */")
w("#define CZK__G1_GEN_X " + cfp_init(G1[0]))
w("#define CZK__G1_GEN_Y " + cfp_init(G1[1]))
w("/* G2 generator (x, y), each c0 + c1*u */")
w("#define CZK__G2_GEN_X " + cfp2_init(G2[0]))
w("#define CZK__G2_GEN_Y " + cfp2_init(G2[1]))
w("/* b = 4 (G1) and b' = 4(u+1) (G2); 3b' for the pairing doubling step */")
w("#define CZK__G1_B " + cfp_init(B1))
w("#define CZK__G2_B " + cfp2_init(B2))
w("#define CZK__G2_B3 " + cfp2_init((12, 12)))
w("/* beta, cube root of unity with sigma(x, y) = (beta*x, y) = -x^2 (x, y) on G1 */")
w("#define CZK__G1_BETA " + cfp_init(BETA))
w("/* psi(x, y) = (conj(x)*CX, conj(y)*CY) on G2; CX = (u+1)^(-(p-1)/3), CY = (u+1)^(-(p-1)/2) */")
w("#define CZK__G2_PSI_CX " + cfp2_init(PSI_CX))
w("#define CZK__G2_PSI_CY " + cfp2_init(PSI_CY))
w("/* |x| = -x, the BLS parameter's absolute value */")
w("#define CZK__BLS_Z 0x%016xULL" % Z)
w("")
w("#endif")
CURVE_H = "\n".join(cout) + "\n"


# ---------------------------------------------------------------------------------------------------------------
# Device constants (src/cuda/constants.cuh): the same integers as 32-bit little-endian limbs, as initializer macros
# (the kernels' files choose storage: __constant__ arrays, register constants).
def l32(v, n):
    assert 0 <= v < 1 << (32 * n)
    return "{" + ", ".join("0x%08xu" % ((v >> (32 * i)) & 0xFFFFFFFF) for i in range(n)) + "}"


dc = []
d = dc.append
n0p32 = (-pow(P, -1, 1 << 32)) % (1 << 32)
n0r32 = (-pow(Q, -1, 1 << 32)) % (1 << 32)
d("/* constants.cuh: GENERATED by tools/gen_constants.py -- do not edit.")
d(" * Rerun:  python3 tools/gen_constants.py")
d(" *")
d(" * The CUDA layer's constants as initializers of little-endian 32-bit limb arrays, from the same integers as the")
d(" * host's src/field/constants.h: Montgomery values are a*R mod m (R = 2^384 for Fp, 2^256 for Fr). Internal to")
d(" * src/cuda. */")
d("#ifndef CZK_CUDA_CONSTANTS_CUH")
d("#define CZK_CUDA_CONSTANTS_CUH")
d("")
d("/* Fp: modulus p, 1 in Montgomery form, n0 = -p^-1 mod 2^32, p - 2 (Fermat inversion exponent) */")
d("#define CZK__CU_FP_P " + l32(P, 12))
d("#define CZK__CU_FP_ONE " + l32((1 << 384) % P, 12))
d("#define CZK__CU_FP_N0 0x%08xu" % n0p32)
d("#define CZK__CU_FP_P_MINUS_2 " + l32(P - 2, 12))
d("/* p then n0 in one array (mont_mul_eo reads both from constant memory) */")
d("#define CZK__CU_FF_QP " + l32(P | (n0p32 << 384), 13))
d("/* Fr: modulus r, 1 in Montgomery form, n0 = -r^-1 mod 2^32, 2r (lazy reduction bound), r then n0 */")
d("#define CZK__CU_FR_P " + l32(Q, 8))
d("#define CZK__CU_FR_ONE " + l32((1 << 256) % Q, 8))
d("#define CZK__CU_FR_N0 0x%08xu" % n0r32)
d("#define CZK__CU_FR_2P " + l32(2 * Q, 8))
d("#define CZK__CU_FF_QR " + l32(Q | (n0r32 << 256), 9))
d("/* Shoup products: -r^-1 mod 2^256 (the quotient of a Montgomery constant) and 2^256 - r */")
d("#define CZK__CU_FR_NINV256 " + l32((-pow(Q, -1, 1 << 256)) % (1 << 256), 8))
d("#define CZK__CU_FR_NEGR " + l32((1 << 256) - Q, 8))
d("/* -r^-1 mod 2^256 as 64-bit limbs (host side of the Shoup pairs) */")
d("#define CZK__CU_FR_NINV256_64 " + init((-pow(Q, -1, 1 << 256)) % (1 << 256), 4))
d("")
d("#endif")
CUDA_H = "\n".join(dc) + "\n"


# ---------------------------------------------------------------------------------------------------------------
def main():
    import os
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    files = {
        "src/field/constants.h": FIELD_H,
        "src/field/mont_x86_64.c": gen_asm(),
        "src/curve/constants.h": CURVE_H,
        "src/cuda/constants.cuh": CUDA_H,
    }
    check = "--check" in sys.argv[1:]
    stale = []
    for rel, text in files.items():
        path = os.path.join(root, rel)
        if check:
            try:
                with open(path) as f:
                    same = f.read() == text
            except OSError:
                same = False
            if not same:
                stale.append(rel)
        else:
            with open(path, "w") as f:
                f.write(text)
    if check:
        for rel in stale:
            print("gen_constants: %s differs from what tools/gen_constants.py generates" % rel)
        print("gen_constants: %d of %d generated files up to date" % (len(files) - len(stale), len(files)))
        sys.exit(1 if stale else 0)


if __name__ == "__main__":
    main()
