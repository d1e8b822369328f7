// Black-box tests of the SnapDeals kinds through `czk daemon`, with a gRPC client we did not write
// (@grpc/grpc-js + @grpc/proto-loader over czk's proto): requests built exactly as Curio fills SubmitProofRequest for
// an update (proof_kind SNAP_DEALS_UPDATE, sector_size, registered_proof, vanilla_proofs = the raw bincode
// PartitionProof bytes of each partition in order, comm_r_old / comm_d_new / comm_r_new = 32 raw bytes, sector_number,
// miner_id) from what `czk gen-vanilla snap` wrote; every returned proof checked again by `czk verify --request`
// (public inputs recomputed from request.json, .vk by its v28 name); tampered requests refused with a reason naming
// the field, partition or challenge, and the daemon still proving the next job.
// The 2 KiB key (1,705,039 constraints) is made by `czk setup` first (seconds).
// Run: CZK_BIN=build/src/cli/czk node --test tests/daemon/filecoin-snap.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { bench, czk, czkRc } from './filecoin-harness.mjs';

const B = bench('czk-snap-test-');
const dir = B.dir;
const params = join(dir, 'params');
const call = B.call;
const STEM = 'v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-' +
  'fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194';

// gen-vanilla snap into a fresh folder; returns { dir, req (parsed request.json), vanilla (Buffers, partition order) }
let nGen = 0;
function gen(...opts) {
  const out = join(dir, `req${nGen++}`);
  czk('gen-vanilla', 'snap', '--sector-size', '2KiB', '--out', out, ...opts);
  const req = JSON.parse(readFileSync(join(out, 'request.json'), 'utf8'));
  const vanilla = req.vanilla_proofs.map((f) => readFileSync(join(out, f)));
  return { dir: out, req, vanilla };
}

// The SubmitProofRequest Curio sends for an update (fields may be overridden)
function submit(g, over = {}) {
  const r = g.req;
  return {
    request_id: '', proof_kind: 'SNAP_DEALS_UPDATE', sector_size: String(r.sector_size),
    registered_proof: String(r.registered_proof), priority: 'NORMAL', vanilla_proofs: g.vanilla,
    sector_number: '7', miner_id: String(r.miner_id), comm_r_old: Buffer.from(r.comm_r_old, 'hex'),
    comm_d_new: Buffer.from(r.comm_d_new, 'hex'), comm_r_new: Buffer.from(r.comm_r_new, 'hex'), ...over,
  };
}

const proveAndVerify = (g) => B.proveAndVerify(g, submit(g), params, 1,
  /^OK: StackedDrg2KiBV1 proof verifies \(1 partitions, 4 public inputs each\)/);
const refused = B.refused;

before(async () => {
  mkdirSync(params, { recursive: true });
  czk('setup', '--kind', 'snap', '--sector-size', '2KiB', '--out', params);
  await B.start(params);
});

after(() => B.stop());

test('PreloadSRS takes snap-2k; the 2 KiB kind has a queue; circuit-info counts', async () => {
  const p = await call('PreloadSRS', { circuit_id: 'snap-2k' });
  assert.equal(p.already_loaded, false);
  assert.equal((await call('PreloadSRS', { circuit_id: 'snap-2k' })).already_loaded, true);
  const st = await call('GetStatus', {});
  assert.ok(st.loaded_srs.some((k) => k.circuit_id === 'snap-2k'));
  assert.ok(st.queues.map((q) => q.proof_kind).includes('snap-update-2KiB'));
  const info = JSON.parse(czk('circuit-info', 'snap', '--sector-size', '2KiB', '--json'));
  assert.equal(info.constraints, 1705039);
  assert.equal(info.public_inputs, 5);
  assert.equal(info.params, STEM);
});

let densePf = null; // the dense update's proof (seed 3), proven by the tamper test's last step

test('tampered requests are refused with a reason; the daemon proves the next job: a dense update', async () => {
  const g = gen('--seed', '3');
  const v = g.vanilla[0];
  const flip = (buf, off) => { const b = Buffer.from(buf); b[off] ^= 1; return b; };
  // a flipped TreeR_old sibling (challenge 0, level 0), a TreeD sibling (challenge 0, level 1), a forged new node
  await refused(submit(g, { vanilla_proofs: [flip(v, 0x184)] }),
    /partition 0.*challenge 0 \(node \d+\): the proof_r_old path does not hash/);
  await refused(submit(g, { vanilla_proofs: [flip(v, 0x3d8 + 8)] }), /partition 0.*challenge 0.*proof_d_new/);
  await refused(submit(g, { vanilla_proofs: [flip(v, 0x4ec)] }),
    /partition 0.*challenge 0 \(node \d+\): the new replica node is not the encoding/);
  // truncation, trailing bytes, a partition too many
  await refused(submit(g, { vanilla_proofs: [v.subarray(0, v.length - 1)] }), /partition 0.*truncated/);
  await refused(submit(g, { vanilla_proofs: [Buffer.concat([v, Buffer.from([0])])] }), /1 trailing byte/);
  await refused(submit(g, { vanilla_proofs: [v, v] }), /2 vanilla proofs.*exactly 1/);
  // the commitments: another comm_r_new, a short comm_d_new, a non-canonical comm_r_old
  await refused(submit(g, { comm_r_new: flip(Buffer.from(g.req.comm_r_new, 'hex'), 0) }), /differs from comm_r_new/);
  await refused(submit(g, { comm_d_new: Buffer.alloc(31) }), /comm_d_new has 31 bytes/);
  await refused(submit(g, { comm_r_old: Buffer.alloc(32, 0xff) }), /comm_r_old is not a canonical/);
  // a registered proof that is not an update proof, or of another size
  await refused(submit(g, { registered_proof: '7' }), /registered_proof 7 is not an update proof/);
  await refused(submit(g, { registered_proof: '1' }), /disagrees with registered_proof 1/);
  // the daemon is fine: the untampered request proves
  densePf = await proveAndVerify(g);
});

// (the dense update is proven as the tamper test's last job, just before: one 2 KiB SnapDeals proof less, no check less)
test('SnapDeals 2 KiB, dense and sparse updates: proofs verify; a proof does not verify for another update',
  async () => {
    assert.ok(densePf, 'the dense update was not proven');
    const s = gen('--sparse', '--seed', '4');
    await proveAndVerify(s);
    const v = czkRc('verify', '--request', join(s.dir, 'request.json'), '--proof', densePf, '--params', params);
    assert.equal(v.status, 1, v.stdout + v.stderr);
    assert.match(v.stdout, /INVALID: partition 0/);
  });
