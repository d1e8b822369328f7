#!/usr/bin/env python3
"""gen-porep-c1-shape.py: write a structurally valid PoRep C1 output (SealCommitPhase1Output JSON, filecoin-porep.md
section 2) of a registered proof's real shape, and its cuzk envelope, for parser benchmarks.

The values are random (seeded, reproducible): every 32-byte domain is a canonical field element (byte 31 & 0x3f),
path indexes agree with the challenged node's position, roots are equal across a partition as C2 requires. The
layout and key order are those of serde_json (as in the real 8 MiB fixture): compact, fields in declaration order.
It is NOT a valid proof (no Merkle path opens anything); czk_porep_c1_check refuses it, czk_porep_c1_parse reads it.

usage: gen-porep-c1-shape.py [--size 32GiB] [--seed N] --out FILE.json [--envelope FILE.env.json]
  sizes: 2KiB 8MiB 512MiB 32GiB 64GiB (interactive V1_1 proof of that size: 10 x 18 challenges at 32/64 GiB)
"""
import argparse
import base64
import random
import sys

# size name -> (registered proof name, log2 nodes, layers, partitions, challenges, base, sub, top)
SHAPES = {
    "2KiB": ("StackedDrg2KiBV1_1", 6, 2, 1, 2, 8, 0, 0),
    "8MiB": ("StackedDrg8MiBV1_1", 18, 2, 1, 2, 8, 0, 0),
    "512MiB": ("StackedDrg512MiBV1_1", 24, 2, 1, 2, 8, 0, 0),
    "32GiB": ("StackedDrg32GiBV1_1", 30, 11, 10, 18, 8, 8, 0),
    "64GiB": ("StackedDrg64GiBV1_1", 31, 11, 10, 18, 8, 8, 2),
}

NUM = [str(i) for i in range(256)]


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def domain(self):
        b = bytearray(self.rng.randbytes(32))
        b[31] &= 0x3F
        return "[" + ",".join(NUM[v] for v in b) + "]"

    def elements(self, digits, arity):
        """InclusionPath {"path": [{"hashes": [D x (arity-1)], "index": i}, ...]} for the given per-level indexes."""
        els = []
        for i in digits:
            hashes = ",".join(self.domain() for _ in range(arity - 1))
            els.append('{"hashes":[' + hashes + '],"index":' + str(i) + "}")
        return '{"path":[' + ",".join(els) + "]}"


def digits(node, arity, n):
    out = []
    for _ in range(n):
        out.append(node % arity)
        node //= arity
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="32GiB", choices=sorted(SHAPES))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--envelope")
    a = ap.parse_args()
    name, d, layers, parts, chals, base, sub, top = SHAPES[a.size]
    nodes = 1 << d
    trees = (sub or 1) * (top or 1)
    base_levels = (d - (trees.bit_length() - 1)) // 3
    g = Gen(a.seed)
    comm_d = g.domain()

    def poseidon_proof(node, root):
        """MerkleProof of TreeC / TreeR_last (Single, Sub or Top by shape) opening `node`."""
        dg = digits(node, base, base_levels)
        rest = node >> (3 * base_levels)
        leaf = g.domain()
        if not sub:
            return '{"data":{"Single":{"root":' + root + ',"leaf":' + leaf + ',"path":' + g.elements(dg, base) + "}}}"
        s = '{"data":{"' + ("Top" if top else "Sub") + '":{"base_proof":' + g.elements(dg, base)
        s += ',"sub_proof":' + g.elements([rest % sub], sub)
        if top:
            s += ',"top_proof":' + g.elements([rest // sub], top)
        return s + ',"root":' + root + ',"leaf":' + leaf + "}}}"

    def column_proof(node, comm_c):
        rows = ",".join(g.domain() for _ in range(layers))
        col = '{"index":' + str(node) + ',"rows":[' + rows + '],"_h":null}'
        return '{"column":' + col + ',"inclusion_proof":' + poseidon_proof(node, comm_c) + "}"

    def labeling(node, layer):
        ps = ",".join(g.domain() for _ in range(37))
        return '{"parents":[' + ps + '],"layer_index":' + str(layer) + ',"node":' + str(node) + "}"

    partitions = []
    for _ in range(parts):
        comm_r_last, comm_c = g.domain(), g.domain()
        proofs = []
        for _ in range(chals):
            node = g.rng.randrange(1, nodes)
            dproof = ('{"data":{"Single":{"root":' + comm_d + ',"leaf":' + g.domain() + ',"path":' +
                      g.elements(digits(node, 2, d), 2) + "}}}")
            drg = ",".join(column_proof(g.rng.randrange(nodes), comm_c) for _ in range(6))
            exp = ",".join(column_proof(g.rng.randrange(nodes), comm_c) for _ in range(8))
            rcp = '{"c_x":' + column_proof(node, comm_c) + ',"drg_parents":[' + drg + '],"exp_parents":[' + exp + "]}"
            lab = ",".join(labeling(node, l + 1) for l in range(layers))
            proofs.append('{"comm_d_proofs":' + dproof + ',"comm_r_last_proof":' + poseidon_proof(node, comm_r_last) +
                          ',"replica_column_proofs":' + rcp + ',"labeling_proofs":[' + lab + '],"encoding_proof":' +
                          labeling(node, layers) + "}")
        partitions.append("[" + ",".join(proofs) + "]")
    variant = "StackedDrg" + a.size + "V1"
    doc = ('{"registered_proof":"' + name + '","vanilla_proofs":{"' + variant + '":[' + ",".join(partitions) + "]}" +
           ',"comm_r":' + g.domain() + ',"comm_d":' + comm_d + ',"replica_id":' + g.domain() + ',"seed":' +
           g.domain() + ',"ticket":' + g.domain() + "}")
    data = doc.encode()
    with open(a.out, "wb") as f:
        f.write(data)
    print(f"{a.out}: {name}, {parts} x {chals} challenges, {len(data)} bytes", file=sys.stderr)
    if a.envelope:
        sector_size = {"2KiB": 2048, "8MiB": 8 << 20, "512MiB": 512 << 20, "32GiB": 32 << 30, "64GiB": 64 << 30}[a.size]
        env = ('{"SectorNum":1,"Phase1Out":"' + base64.b64encode(data).decode() + '","SectorSize":' + str(sector_size) +
               "}").encode()
        with open(a.envelope, "wb") as f:
            f.write(env)
        print(f"{a.envelope}: cuzk envelope, {len(env)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
