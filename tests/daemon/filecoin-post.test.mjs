// Black-box tests of the Filecoin PoSt kinds through `czk daemon`, with a gRPC client we did not write
// (@grpc/grpc-js + @grpc/proto-loader over czk's proto): requests built exactly as Curio fills SubmitProofRequest
// (proof_kind, sector_size, registered_proof, vanilla_proofs = raw bincode bytes, miner_id, randomness,
// partition_index) from what `czk gen-vanilla` wrote; every returned proof checked again by `czk verify --request`
// (public inputs recomputed from request.json, .vk by its v28 name); tampered requests refused with a reason and the
// daemon still proving the next job; a wrong randomness makes a good proof fail verification.
// Run: CZK_BIN=build/src/cli/czk node --test tests/daemon/filecoin-post.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { bench, czk, czkRc } from './filecoin-harness.mjs';

const B = bench('czk-post-test-');
const dir = B.dir;
const params = join(dir, 'params');
const call = B.call;

// gen-vanilla into a fresh folder; returns { dir, req (parsed request.json), vanilla (Buffers) }
let nGen = 0;
function gen(kind, ...opts) {
  const out = join(dir, `req${nGen++}`);
  czk('gen-vanilla', kind, '--sector-size', '2KiB', '--out', out, ...opts);
  const req = JSON.parse(readFileSync(join(out, 'request.json'), 'utf8'));
  const vanilla = req.vanilla_proofs.map((f) => readFileSync(join(out, f)));
  return { dir: out, req, vanilla };
}

// The SubmitProofRequest Curio sends for a request.json (fields may be overridden)
function submit(g, over = {}) {
  const r = g.req;
  return {
    request_id: '', proof_kind: r.proof_kind === 4 ? 'WINNING_POST' : 'WINDOW_POST_PARTITION',
    sector_size: String(r.sector_size), registered_proof: String(r.registered_proof), priority: 'NORMAL',
    vanilla_proofs: g.vanilla, miner_id: String(r.miner_id), randomness: Buffer.from(r.randomness, 'hex'),
    partition_index: r.partition_index, ...over,
  };
}

const proveAndVerify = (g) => B.proveAndVerify(g, submit(g), params);
const refused = B.refused;

before(async () => {
  mkdirSync(params, { recursive: true });
  czk('setup', '--kind', 'window-post', '--sector-size', '2KiB', '--out', params);
  czk('setup', '--kind', 'winning-post', '--sector-size', '2KiB', '--out', params);
  await B.start(params);
});

after(() => B.stop());

test('PreloadSRS takes the circuit ids; the PoSt kinds have queues', async () => {
  const p = await call('PreloadSRS', { circuit_id: 'wpost-2k' });
  assert.equal(p.already_loaded, false);
  assert.ok(Number(p.load_time_ms) >= 0);
  assert.equal((await call('PreloadSRS', { circuit_id: 'wpost-2k' })).already_loaded, true);
  assert.ok((await call('GetStatus', {})).loaded_srs.some((k) => k.circuit_id === 'wpost-2k'));
  await call('PreloadSRS', { circuit_id: 'winning-2k' });
  const st = await call('GetStatus', {});
  const kinds = st.queues.map((q) => q.proof_kind);
  assert.ok(kinds.includes('window-post-2KiB') && kinds.includes('winning-post-32GiB'), kinds.join(','));
  await assert.rejects(call('PreloadSRS', { circuit_id: 'wpost-3k' }));
});

test('WindowPoSt 2 KiB, API 1.2 and 1.0, dense and sparse, padded and partition 1: proofs verify', async () => {
  await proveAndVerify(gen('window-post', '--sectors', '2', '--seed', '3'));
  await proveAndVerify(gen('window-post', '--sectors', '1', '--sparse', '--seed', '4'));
  await proveAndVerify(gen('window-post', '--sectors', '2', '--api', '1.0', '--seed', '5'));
  await proveAndVerify(gen('window-post', '--sectors', '1', '--sparse', '--api', '1.0', '--partition', '1'));
});

test('WinningPoSt 2 KiB, dense and sparse: proofs verify', async () => {
  await proveAndVerify(gen('winning-post', '--seed', '6'));
  await proveAndVerify(gen('winning-post', '--sparse', '--seed', '7'));
});

test('a wrong randomness: the proof does not verify', async () => {
  const g = gen('window-post', '--sectors', '2', '--seed', '8');
  const pf = await proveAndVerify(g);
  const bad = join(dir, 'badrand');
  cpSync(g.dir, bad, { recursive: true });
  const r = JSON.parse(readFileSync(join(bad, 'request.json'), 'utf8'));
  r.randomness = (r.randomness[0] === '0' ? '1' : '0') + r.randomness.slice(1);
  writeFileSync(join(bad, 'request.json'), JSON.stringify(r));
  const v = czkRc('verify', '--request', join(bad, 'request.json'), '--proof', pf, '--params', params);
  assert.equal(v.status, 1, v.stdout + v.stderr);
  assert.match(v.stdout, /INVALID/);
});

test('tampered requests are refused with a reason; the daemon proves the next job', async () => {
  const g = gen('window-post', '--sectors', '2', '--seed', '9');
  const flip = (buf, off) => { const b = Buffer.from(buf); b[off] ^= 1; return b; };
  const v = g.vanilla;
  // a flipped sibling hash (level 0 of challenge 0), a wrong path index (level 0 of challenge 0)
  await refused(submit(g, { vanilla_proofs: [v[0], flip(v[1], 0x8c)] }), /vanilla proof 1.*challenge 0.*does not hash/);
  const idx = Buffer.from(v[0]);
  idx[0x16c] = (idx[0x16c] + 1) % 8;
  await refused(submit(g, { vanilla_proofs: [idx, v[1]] }), /vanilla proof 0.*challenge 0/);
  // truncation, trailing bytes, too many sectors
  await refused(submit(g, { vanilla_proofs: [v[0].subarray(0, v[0].length - 1), v[1]] }), /truncated/);
  await refused(submit(g, { vanilla_proofs: [Buffer.concat([v[0], Buffer.from([0])]), v[1]] }), /trailing/);
  await refused(submit(g, { vanilla_proofs: [v[0], v[1], v[1]] }), /3 vanilla proofs/);
  // a registered proof of another kind or size, a sector size that disagrees, a short randomness
  await refused(submit(g, { registered_proof: '0' }), /registered_proof 0 is not a WindowPoSt proof/);
  await refused(submit(g, { registered_proof: '13' }), /disagrees with registered_proof 13/);
  await refused(submit(g, { randomness: Buffer.alloc(31) }), /randomness has 31 bytes/);
  // a non-canonical randomness
  await refused(submit(g, { randomness: Buffer.alloc(32, 0xff) }), /canonical/);
  // the daemon is fine: the untampered request proves
  await proveAndVerify(g);
});

test('vanilla proofs made for API 1.0 sent as API 1.2 (and a WinningPoSt sibling flipped) are refused', async () => {
  const g = gen('window-post', '--sectors', '2', '--api', '1.0', '--partition', '1', '--seed', '10');
  await refused(submit(g, { registered_proof: '10' }), /challenge .*derived from the randomness/);
  const w = gen('winning-post', '--seed', '11');
  const b = Buffer.from(w.vanilla[0]);
  b[0x8c] ^= 1;
  await refused(submit(w, { vanilla_proofs: [b] }), /vanilla proof 0.*challenge 0.*does not hash/);
  await refused(submit(w, { vanilla_proofs: [w.vanilla[0], w.vanilla[0]] }), /2 vanilla proofs.*exactly 1/);
  await proveAndVerify(w);
});
