#!/usr/bin/env python3
# gen_constants.py: generates src/field/constants.h, every constant of the BLS12-381 field layer, and
# src/field/mont_x86_64.c, the mulx/adcx/adox Montgomery multiplications (see gen_asm below).
# Rerun:  python3 tools/gen_constants.py src/field      (no argument: constants.h to stdout)
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
    " * Rerun:  python3 tools/gen_constants.py src/field",
    " *",
    " * BLS12-381 field constants as initializers of little-endian 64-bit limb arrays. \"Montgomery\" values are a*R mod m",
    " * (R = 2^384 for Fp, 2^256 for Fr); \"raw\" values are plain integers (exponents, bounds). Internal to src/field. */",
    "#ifndef CZK_FIELD_CONSTANTS_H",
    "#define CZK_FIELD_CONSTANTS_H",
    "",
]
if len(sys.argv) == 1:
    sys.stdout.write("\n".join(hdr + out + ["", "#endif", ""]))


# ---------------------------------------------------------------------------------------------------------------
# x86-64 BMI2+ADX Montgomery multiplication (mulx / adcx / adox), written to src/field/mont_x86_64.c when the
# script is run with an output directory:  python3 tools/gen_constants.py src/field
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
        " * Rerun:  python3 tools/gen_constants.py src/field",
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
        "/* CZK_FIELD_PORTABLE=1 in the environment forces the portable C path. */",
        "__attribute__((constructor)) static void czk__field_detect(void) {",
        "  __builtin_cpu_init();",
        "  const char *env = getenv(\"CZK_FIELD_PORTABLE\");",
        "  bool off = env && env[0] && env[0] != '0';",
        "  czk__field_adx = !off && __builtin_cpu_supports(\"bmi2\") && __builtin_cpu_supports(\"adx\");",
        "}",
        "",
        "bool czk__field_set_adx(bool on) {",
        "  __builtin_cpu_init();",
        "  bool avail = __builtin_cpu_supports(\"bmi2\") && __builtin_cpu_supports(\"adx\");",
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


if len(sys.argv) > 1:
    import os
    d = sys.argv[1]
    text = "\n".join(hdr + out + ["", "#endif", ""])
    with open(os.path.join(d, "constants.h"), "w") as f:
        f.write(text.replace("python3 tools/gen_constants.py > src/field/constants.h", "python3 tools/gen_constants.py src/field"))
    with open(os.path.join(d, "mont_x86_64.c"), "w") as f:
        f.write(gen_asm())
