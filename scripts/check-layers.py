#!/usr/bin/env python3
"""check-layers.py: the layering rule of ARCHITECTURE.md section 3, checked on every #include of the tree.

Fails (exit 1, one line per offence: file:line, the include, why) when
  - a file includes a header of a layer it may not depend on (a higher layer, or one beside it not in its list);
  - a file includes another folder's private header (*_internal.h, *_impl.h, .cuh, .inc);
  - a public header (include/czk/*.h) is not in the table below (so the table stays complete).
Layers are the folders of src/ (plus bench/ and tests/<layer>/); include/czk/<x>.h belongs to the layer the table
names. A folder may always include its own headers. tests/<layer>/ may include what <layer> may, <layer> itself (its
private headers too), tests/ helpers and the fixture layers of TEST_FIXTURES. Usage: check-layers.py [ROOT]."""
import os
import re
import sys

# folder -> the layers whose headers it may include (besides its own)
ALLOWED = {
    "core": set(),
    "field": {"core"},
    "curve": {"field", "core"},
    "msm": {"curve", "field", "core"},
    "ntt": {"field", "core"},
    "cuda": {"curve", "field", "core"},
    "backend": {"msm", "ntt", "cuda", "curve", "field", "core"},
    "cs": {"field", "core"},
    "circuits": {"cs", "field", "core"},
    "filecoin": {"circuits", "cs", "curve", "field", "core"},
    "groth16": {"backend", "cs", "msm", "ntt", "curve", "field", "core"},
    "engine": {"core"},
    "kinds": {"engine", "groth16", "filecoin", "circuits", "cs", "backend", "msm", "ntt", "curve", "field", "core"},
    "api": {"engine", "kinds", "core"},
}
ALLOWED["bench"] = {"api", "kinds", "engine", "groth16", "filecoin", "circuits", "cs", "backend", "cuda", "msm", "ntt",
                    "curve", "field", "core"}
ALLOWED["cli"] = ALLOWED["bench"] | {"bench"}
# tests/fuzz (libFuzzer harnesses): a test folder of no layer of its own, calling every parser's entry point
ALLOWED["fuzz"] = set(ALLOWED["bench"])

# public header -> layer
PUBLIC = {
    "common.h": "core", "status.h": "core", "log.h": "core", "pool.h": "core", "budget.h": "core", "trace.h": "core",
    "field.h": "field", "curve.h": "curve", "msm.h": "msm", "ntt.h": "ntt", "cuda.h": "cuda",
    "backend.h": "backend", "cs.h": "cs", "gadgets.h": "circuits", "hash.h": "circuits", "filecoin.h": "filecoin", "post.h": "filecoin", "porep.h": "filecoin", "snap.h": "filecoin",
    "circom.h": "cs", "compiled.h": "cs", "groth16.h": "groth16", "snarkjs.h": "groth16", "engine.h": "engine", "kinds.h": "kinds",
}

# tests may also use these layers as fixtures: a circuit to prove (groth16, cs), a prover for circuits end to end and
# native Filecoin trees whose paths the gadgets check (circuits), the Filecoin circuits compiled and proved witness-only
# (cs: compiled circuits), and the CPU layers and Filecoin circuits as the reference of the device kernels (cuda)
TEST_FIXTURES = {"cs": {"circuits", "filecoin", "groth16", "backend"}, "groth16": {"circuits"},
                 "circuits": {"groth16", "backend", "filecoin"}, "cuda": {"msm", "ntt", "backend", "cs", "filecoin"}}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCES = (".c", ".h", ".cu", ".cuh", ".inc")


def private(path):
    base = os.path.basename(path)
    return base.endswith(("_internal.h", "_impl.h", ".cuh", ".inc"))


def layer_of_file(rel):
    """(kind, layer) of a source file: ('src', x), ('test', x), ('public', x), ('bench', 'bench') or None."""
    parts = rel.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return "src", parts[1]
    if parts[0] == "bench":
        return "bench", "bench"
    if parts[0] == "tests" and len(parts) > 2:
        return "test", parts[1]
    if parts[0] == "include" and len(parts) == 3 and parts[1] == "czk":
        return "public", PUBLIC.get(parts[2])
    return None


def check(root):
    errors = []
    for base in ("src", "include", "bench", "tests"):
        for d, _, files in os.walk(os.path.join(root, base)):
            for f in sorted(files):
                if not f.endswith(SOURCES):
                    continue
                path = os.path.join(d, f)
                rel = os.path.relpath(path, root)
                where = layer_of_file(rel)
                if where is None:
                    continue
                kind, layer = where
                if kind == "public" and layer is None:
                    errors.append(f"{rel}: public header not in the layer table of scripts/check-layers.py")
                    continue
                if layer not in ALLOWED and kind != "test":
                    errors.append(f"{rel}: folder '{layer}' is not a layer of ARCHITECTURE.md section 3")
                    continue
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        why = judge(root, rel, kind, layer, m.group(1))
                        if why:
                            errors.append(f"{rel}:{n}: #include \"{m.group(1)}\": {why}")
    return errors


def judge(root, rel, kind, layer, inc):
    own = layer
    allowed = ALLOWED.get(layer, set())
    if kind == "test":
        allowed = ALLOWED.get(layer, set()) | {layer} | TEST_FIXTURES.get(layer, set())
        for extra in TEST_FIXTURES.get(layer, set()):
            allowed = allowed | ALLOWED.get(extra, set())
        if inc.startswith("tests/") or os.path.exists(os.path.join(root, "tests", inc)) or \
                os.path.exists(os.path.join(root, os.path.dirname(rel), inc)):
            return None
    if inc.startswith("czk/"):
        target = PUBLIC.get(inc[4:])
        if target is None:
            return "unknown public header"
        if target == own or target in allowed:
            return None
        return f"layer '{own}' may not depend on '{target}'"
    top = inc.split("/")[0]
    if "/" not in inc:
        return None  # same-folder include
    if top == own:
        return None
    if top == "bench" and "bench" in allowed:
        target = "bench"
    elif os.path.isdir(os.path.join(root, "src", top)):
        target = top
    else:
        return None  # generated or system-relative paths (e.g. the protobuf output)
    if private(inc) and not (kind == "test" and target == layer):
        return f"private header of '{target}'"
    if target in allowed:
        return None
    return f"layer '{own}' may not depend on '{target}'"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    errors = check(root)
    for e in errors:
        print(e)
    if errors:
        print(f"check-layers: {len(errors)} offence(s) against ARCHITECTURE.md section 3")
        return 1
    print("check-layers: every include follows ARCHITECTURE.md section 3")
    return 0


if __name__ == "__main__":
    sys.exit(main())
