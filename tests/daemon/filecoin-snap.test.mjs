// Black-box tests of the SnapDeals kinds through `czk daemon`, with a gRPC client we did not write
// (@grpc/grpc-js + @grpc/proto-loader over czk's proto): requests built exactly as Curio fills SubmitProofRequest for
// an update (proof_kind SNAP_DEALS_UPDATE, sector_size, registered_proof, vanilla_proofs = the raw bincode
// PartitionProof bytes of each partition in order, comm_r_old / comm_d_new / comm_r_new = 32 raw bytes, sector_number,
// miner_id) from what `czk gen-vanilla snap` wrote; every returned proof checked again by `czk verify --request`
// (public inputs recomputed from request.json, .vk by its v28 name); tampered requests refused with a reason naming
// the field, partition or challenge, and the daemon still proving the next job.
// The 2 KiB key (1,705,039 constraints; minutes of setup on 2 cores) is set up once and kept in CZK_SNAP_PARAMS (CTest:
// the build tree's tests/snap-params) for later runs, as long as the circuit it was made for is unchanged.
// Run: CZK_BIN=build/src/cli/czk node --test tests/daemon/filecoin-snap.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, writeFileSync, mkdirSync, cpSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const grpc = require(join(root, 'node_modules', '@grpc', 'grpc-js'));
const protoLoader = require(join(root, 'node_modules', '@grpc', 'proto-loader'));

const CZK = process.env.CZK_BIN || join(root, 'build', 'src', 'cli', 'czk');
const dir = mkdtempSync(join(tmpdir(), 'czk-snap-test-'));
const params = process.env.CZK_SNAP_PARAMS || join(dir, 'params');
const sock = join(dir, 'czk.sock');
const addr = 'unix:' + sock;
const STEM = 'v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-' +
  'fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194';
let daemon, client, stderrText = '';

const proto = grpc.loadPackageDefinition(protoLoader.loadSync(join(root, 'proto', 'cuzk_v1.proto'), {
  keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
})).cuzk.v1;

const czk = (...args) => execFileSync(CZK, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const czkRc = (...args) => spawnSync(CZK, args, { encoding: 'utf8' });

function startDaemon() {
  return new Promise((resolve, reject) => {
    const p = spawn(CZK, ['daemon', '--listen', addr, '--keys-dir', join(dir, 'keys'), '--param-dir', params,
      '--gpus', 'none', '--memory-budget', '4GiB', '--synthesis-workers', '2', '--log-level', 'info'],
    { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error('daemon did not start: ' + stderrText)), 60000);
    p.stdout.on('data', (d) => { out += d; if (/ready on /.test(out)) { clearTimeout(timer); resolve(p); } });
    p.stderr.on('data', (d) => { stderrText += d; });
    p.on('exit', (code) => { clearTimeout(timer); reject(new Error('daemon exited ' + code + ': ' + stderrText)); });
  });
}

const call = (m, req) => new Promise((resolve, reject) => {
  client[m](req, {}, (err, res) => (err ? reject(err) : resolve(res)));
});

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

async function proveAndVerify(g) {
  const res = await call('Prove', { submit: submit(g) });
  assert.equal(res.result.status, 'COMPLETED', res.result.error_message);
  assert.equal(res.result.proof.length, 192);
  const pf = join(g.dir, 'proof.bin');
  writeFileSync(pf, res.result.proof);
  const v = czkRc('verify', '--request', join(g.dir, 'request.json'), '--proof', pf, '--params', params);
  assert.equal(v.status, 0, v.stdout + v.stderr);
  assert.match(v.stdout, /^OK: StackedDrg2KiBV1 proof verifies \(1 partitions, 4 public inputs each\)/);
  return pf;
}

// A refused request: a gRPC error or a FAILED result whose message matches `why`
async function refused(req, why) {
  let msg;
  try {
    const res = await call('Prove', { submit: req });
    assert.notEqual(res.result.status, 'COMPLETED', 'a tampered request was proven');
    msg = res.result.error_message;
  } catch (e) {
    msg = e.details || e.message;
  }
  assert.match(msg, why);
}

// The key in `params` is reused only when it was made for the circuit czk synthesizes now: its circuit-info (counts,
// non-zeros, densities) is kept beside it and compared.
function ensureKey() {
  const info = JSON.parse(czk('circuit-info', 'snap', '--sector-size', '2KiB', '--json'));
  delete info.seconds;
  const stamp = join(params, STEM + '.circuit.json');
  const have = existsSync(join(params, STEM + '.params')) && existsSync(join(params, STEM + '.vk')) &&
    existsSync(stamp) && readFileSync(stamp, 'utf8') === JSON.stringify(info);
  if (!have) {
    czk('setup', '--kind', 'snap', '--sector-size', '2KiB', '--out', params);
    writeFileSync(stamp, JSON.stringify(info));
  }
}

before(async () => {
  mkdirSync(params, { recursive: true });
  ensureKey();
  daemon = await startDaemon();
  client = new proto.ProvingEngine(addr, grpc.credentials.createInsecure(),
    { 'grpc.max_receive_message_length': 64 << 20, 'grpc.max_send_message_length': 64 << 20 });
});

after(() => {
  if (daemon && daemon.exitCode === null) daemon.kill('SIGKILL');
  client?.close();
  rmSync(dir, { recursive: true, force: true }); /* CZK_SNAP_PARAMS (outside dir) is kept */
});

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

test('SnapDeals 2 KiB, dense and sparse updates: proofs verify; a proof does not verify for another update',
  async () => {
    const d = gen('--seed', '3');
    const s = gen('--sparse', '--seed', '4');
    const pd = await proveAndVerify(d);
    await proveAndVerify(s);
    const v = czkRc('verify', '--request', join(s.dir, 'request.json'), '--proof', pd, '--params', params);
    assert.equal(v.status, 1, v.stdout + v.stderr);
    assert.match(v.stdout, /INVALID: partition 0/);
  });

test('tampered requests are refused with a reason; the daemon proves the next job', async () => {
  const g = gen('--seed', '5');
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
  await proveAndVerify(g);
});
