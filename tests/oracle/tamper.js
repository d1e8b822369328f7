// tamper.js: makes damaged copies of snarkjs files for the oracle test (tests/oracle/oracle_test.sh).
//   node tamper.js public-add1  <public.json> <out>   first public signal + 1
//   node tamper.js public-plus-r <public.json> <out>  first public signal + r (same value mod r, but not canonical)
//   node tamper.js swap-ac      <proof.json>  <out>   pi_a and pi_c exchanged (both valid points)
//   node tamper.js offcurve-a   <proof.json>  <out>   pi_a.y + 1 (not on the curve)
//   node tamper.js wtns-add1 <index> <witness.wtns> <out>   witness value <index> + 1 (mod r), container intact
"use strict";
const fs = require("fs");
const R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
const [cmd, ...args] = process.argv.slice(2);
const readJson = (p) => JSON.parse(fs.readFileSync(p, "utf8"));
const writeJson = (p, v) => fs.writeFileSync(p, JSON.stringify(v, null, 1));

function wtnsAdd1(index, inPath, outPath) {
  const b = Buffer.from(fs.readFileSync(inPath));
  if (b.toString("latin1", 0, 4) !== "wtns") throw new Error("not a wtns file");
  const nSections = b.readUInt32LE(8);
  let pos = 12;
  for (let s = 0; s < nSections; s++) {
    const id = b.readUInt32LE(pos);
    const size = Number(b.readBigUInt64LE(pos + 4));
    if (id === 2) {
      const off = pos + 12 + 32 * index;
      if (32 * (index + 1) > size) throw new Error("index out of range");
      let v = 0n;
      for (let i = 31; i >= 0; i--) v = (v << 8n) | BigInt(b[off + i]);
      v = (v + 1n) % R;
      for (let i = 0; i < 32; i++) {
        b[off + i] = Number(v & 0xffn);
        v >>= 8n;
      }
      fs.writeFileSync(outPath, b);
      return;
    }
    pos += 12 + size;
  }
  throw new Error("no section 2");
}

switch (cmd) {
  case "public-add1":
  case "public-plus-r": {
    const p = readJson(args[0]);
    const add = cmd === "public-add1" ? 1n : R;
    p[0] = (BigInt(p[0]) + add).toString();
    writeJson(args[1], p);
    break;
  }
  case "swap-ac": {
    const p = readJson(args[0]);
    [p.pi_a, p.pi_c] = [p.pi_c, p.pi_a];
    writeJson(args[1], p);
    break;
  }
  case "offcurve-a": {
    const p = readJson(args[0]);
    p.pi_a[1] = (BigInt(p.pi_a[1]) + 1n).toString();
    writeJson(args[1], p);
    break;
  }
  case "wtns-add1":
    wtnsAdd1(Number(args[0]), args[1], args[2]);
    break;
  default:
    console.error("usage: node tamper.js public-add1|public-plus-r|swap-ac|offcurve-a|wtns-add1 ...");
    process.exit(2);
}
