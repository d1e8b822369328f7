// Black-box tests of PoRep C2 through `czk daemon`, with a gRPC client we did not write (@grpc/grpc-js +
// @grpc/proto-loader over czk's proto): requests built exactly as Curio sends them (proof_kind POREP_SEAL_COMMIT,
// sector_size, registered_proof, sector_number, miner_id, vanilla_proof = cuzk's envelope {SectorNum, Phase1Out,
// SectorSize}) from C1 outputs `czk gen-vanilla porep` made (a dense seal of random data, a sparse committed-capacity
// sector, a synthetic-PoRep seal); every returned proof checked again by `czk verify --request` (public inputs
// recomputed from request.json alone, .vk by its v28 name); tampered C1 outputs (a label, a sibling, comm_r, a
// truncated array, bad base64, another miner) refused with the reason and the daemon still proving the next job.
// The 2 KiB PoRep circuit has 2,687,921 constraints (a 2^22 domain): the key is made once by `czk setup`.
// Run: CZK_BIN=build/src/cli/czk node --test tests/daemon/filecoin-porep.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { bench, czk, root } from './filecoin-harness.mjs';

const B = bench('czk-porep-test-');
const dir = B.dir;
const params = join(dir, 'params');
const call = B.call;

// gen-vanilla porep into a fresh folder; returns { dir, req (request.json), c1 (parsed C1 JSON), env (Buffer) }
let nGen = 0;
function gen(...opts) {
  const out = join(dir, `req${nGen++}`);
  czk('gen-vanilla', 'porep', '--sector-size', '2KiB', '--out', out, ...opts);
  const req = JSON.parse(readFileSync(join(out, 'request.json'), 'utf8'));
  return { dir: out, req, c1: JSON.parse(readFileSync(join(out, 'c1.json'), 'utf8')), env: readFileSync(join(out, req.vanilla_proof)) };
}

// cuzk's envelope around a C1 output (Go's json.Marshal of C1OutputWrapper)
const envelope = (c1, num, size) => Buffer.from(JSON.stringify({
  SectorNum: num, Phase1Out: Buffer.from(JSON.stringify(c1)).toString('base64'), SectorSize: size,
}));

// The SubmitProofRequest Curio sends for a request.json (fields may be overridden)
function submit(g, over = {}) {
  const r = g.req;
  return {
    request_id: '', proof_kind: 'POREP_SEAL_COMMIT', sector_size: String(r.sector_size),
    registered_proof: String(r.registered_proof), priority: 'NORMAL', vanilla_proof: g.env,
    sector_number: String(r.sector_number), miner_id: String(r.miner_id), ...over,
  };
}

const proveAndVerify = (g, partitions = 1) => B.proveAndVerify(g, submit(g), params, partitions);
const refused = B.refused;

before(async () => {
  mkdirSync(params, { recursive: true });
  czk('setup', '--kind', 'porep', '--sector-size', '2KiB', '--out', params);
  await B.start(params, '8GiB', '1');
});

after(() => B.stop());

test('PreloadSRS porep-2k loads the key by its v28 name', async () => {
  const p = await call('PreloadSRS', { circuit_id: 'porep-2k' });
  assert.equal(p.already_loaded, false);
  assert.equal((await call('PreloadSRS', { circuit_id: 'porep-2k' })).already_loaded, true);
  assert.ok((await call('GetStatus', {})).loaded_srs.some((k) => k.circuit_id === 'porep-2k'));
});

// (the dense seal of another miner and sector proves as the tamper test's last job: one 2 KiB PoRep proof less to wait
// for, no check less)
test('PoRep 2 KiB: a sparse CC sector and a synthetic PoRep seal prove and verify', async () => {
  await proveAndVerify(gen('--sparse', '--seed', '4'));
  await proveAndVerify(gen('--mode', 'synthetic', '--seed', '5'));
});

test('tampered C1 outputs are refused with a reason; the daemon proves the next job: a dense seal (miner 1234, ' +
  'sector 77)', async () => {
  const g = gen('--seed', '3', '--miner', '1234', '--sector', '77');
  const size = g.req.sector_size;
  const tamper = (f) => { const c = structuredClone(g.c1); f(c); return envelope(c, 77, size); };
  const ch0 = (c) => c.vanilla_proofs.StackedDrg2KiBV1[0][0];
  // a label (a DRG parent's row), a TreeR sibling, comm_r, a truncated array
  await refused(submit(g, { vanilla_proof: tamper((c) => { ch0(c).replica_column_proofs.drg_parents[0].column.rows[1][3] ^= 1; }) }),
    /challenge 0 .*DRG parent 0 column is not in TreeC/);
  await refused(submit(g, { vanilla_proof: tamper((c) => { ch0(c).comm_r_last_proof.data.Single.path.path[0].hashes[0][0] ^= 1; }) }),
    /challenge 0 .*is not in TreeR_last/);
  await refused(submit(g, { vanilla_proof: tamper((c) => { c.comm_r[0] ^= 1; }) }), /comm_r is not H\(comm_c, comm_r_last\)/);
  await refused(submit(g, { vanilla_proof: tamper((c) => { ch0(c).replica_column_proofs.drg_parents.pop(); }) }),
    /drg_parents must hold 6/);
  // bad base64, another miner (replica id), a registered proof of another size, a sector number that disagrees
  await refused(submit(g, { vanilla_proof: Buffer.from(`{"SectorNum":77,"Phase1Out":"!!!!","SectorSize":${size}}`) }), /base64/);
  await refused(submit(g, { miner_id: '1001' }), /replica_id/);
  await refused(submit(g, { registered_proof: '6' }), /not a 2KiB seal proof|8MiB/);
  await refused(submit(g, { sector_number: '10' }), /disagrees with sector_number 10/);
  // the daemon is fine: the untampered request proves (the dense seal of miner 1234, sector 77)
  await proveAndVerify(g);
});

// Under CZK_POREP_FULL=1 (CTest test_porep_daemon_full, labels full;long): the real 8 MiB C1 output (a sector sealed by
// the reference, shared/fixtures/filecoin) proved through the daemon with a key of our own made by `czk setup`, and
// verified by `czk verify --request` from its public data (miner 1006, sector 1498).
test('the real 8 MiB C1 output proves through the daemon and verifies', { skip: process.env.CZK_POREP_FULL !== '1' }, async () => {
  czk('setup', '--kind', 'porep', '--sector-size', '8MiB', '--out', params);
  const out = join(dir, 'real8m');
  mkdirSync(out, { recursive: true });
  const c1 = readFileSync(join(root, 'tests', 'shared', 'fixtures', 'filecoin', 'porep-c1-8MiB.json'));
  const env = Buffer.from(JSON.stringify({ SectorNum: 1498, Phase1Out: c1.toString('base64'), SectorSize: 8388608 }));
  writeFileSync(join(out, 'c1-envelope.json'), env);
  const req = { kind: 'porep', proof_kind: 1, registered_proof: 6, sector_size: 8388608, miner_id: 1006,
    sector_number: 1498, vanilla_proof: 'c1-envelope.json' };
  writeFileSync(join(out, 'request.json'), JSON.stringify(req));
  await proveAndVerify({ dir: out, req, env });
});
