// Black-box fault injection (docs/reliability.md "Faults"): a daemon started with CZK_FAULTS set.
// rpc.write: the response of a Prove is lost on the way out (the socket write fails): the client sees UNAVAILABLE, the
// job is not lost (AwaitProof by its request id returns the proof; a retried Prove with the same request id attaches
// to it instead of proving again), the daemon serves on. http.write: a /healthz response that cannot be written drops
// that connection only. device.msm (sticky, on the CPU prover the daemon uses without GPUs): the device is
// quarantined, the job fails with a clear error, later submits are refused with UNAVAILABLE, and the
// daemon still answers GetStatus and exits cleanly on SIGTERM.
// Run: CZK_BIN=build/src/cli/czk node --test tests/daemon/faults.test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const grpc = require(join(root, 'node_modules', '@grpc', 'grpc-js'));
const protoLoader = require(join(root, 'node_modules', '@grpc', 'proto-loader'));
const CZK = process.env.CZK_BIN || join(root, 'build', 'src', 'cli', 'czk');
const dir = mkdtempSync(join(tmpdir(), 'czk-faults-test-'));
const proto = grpc.loadPackageDefinition(protoLoader.loadSync(join(root, 'proto', 'cuzk_v1.proto'), {
  keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
})).cuzk.v1;
const live = new Set();
let nsock = 0;

const call = (c, m, req, opts = {}) => new Promise((resolve, reject) => {
  c[m](req, opts, (err, res) => (err ? reject(err) : resolve(res)));
});
const synth = (spec, request_id = '') => ({
  request_id, proof_kind: 'CZK_SYNTHETIC', sector_size: String(1 << 8), vanilla_proof: Buffer.from(spec),
});

function startDaemon(faults, extra = []) {
  const addr = 'unix:' + join(dir, `f${nsock++}.sock`);
  const p = spawn(CZK, ['daemon', '--listen', addr, '--http', '127.0.0.1:0', '--keys-dir', join(dir, 'keys'),
    '--memory-budget', '1GiB', '--synthesis-workers', '1', '--log-level', 'warn', ...extra],
  { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CZK_FAULTS: faults } });
  live.add(p);
  const d = { p, addr, out: '', err: '' };
  d.exited = new Promise((resolve) => p.on('exit', (code, sig) => { live.delete(p); resolve({ code, sig }); }));
  p.stderr.on('data', (x) => { d.err += x; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('daemon did not start: ' + d.err)), 60000);
    p.stdout.on('data', (x) => {
      d.out += x;
      const m = d.out.match(/ready on \S+(?: \(http port (\d+)\))?/);
      if (m) { clearTimeout(timer); d.port = m[1] ? +m[1] : 0; resolve(d); }
    });
    d.exited.then((r) => { clearTimeout(timer); reject(new Error(`daemon exited ${r.code}: ${d.err}`)); });
  });
}

const httpGet = (port, path) => new Promise((resolve) => {
  const req = request({ host: '127.0.0.1', port, path, timeout: 5000 }, (res) => {
    let body = '';
    res.on('data', (x) => { body += x; });
    res.on('end', () => resolve({ code: res.statusCode, body }));
  });
  req.on('error', (e) => resolve({ error: e.code || String(e) }));
  req.on('timeout', () => { req.destroy(); resolve({ error: 'timeout' }); });
  req.end();
});

async function stop(d) {
  d.p.kill('SIGTERM');
  const r = await d.exited;
  assert.equal(r.code, 0, `daemon exit ${r.code} ${r.sig}: ${d.err}`);
}

after(() => {
  for (const p of live) p.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

test('a lost response loses no job; a dropped HTTP response drops one connection', async () => {
  const d = await startDaemon('rpc.write=1,http.write=1');
  const c = new proto.ProvingEngine(d.addr, grpc.credentials.createInsecure());
  // the first response the daemon writes is lost: the client of this Prove sees UNAVAILABLE
  await assert.rejects(call(c, 'Prove', { submit: synth('partitions=2 seed=5', 'lost-1') }),
    (e) => e.code === grpc.status.UNAVAILABLE);
  assert.match(d.err, /fault injection armed from CZK_FAULTS/);
  assert.match(d.err, /injected transient fault at rpc\.write/);
  // the job went on: its result is there by request id, and a retried Prove attaches to it
  const a = await call(c, 'AwaitProof', { job_id: 'lost-1', timeout_ms: 60000 });
  assert.equal(a.status, 'COMPLETED', a.error_message);
  assert.equal(a.proof.length, 2 * 192);
  const p = await call(c, 'Prove', { submit: synth('partitions=2 seed=5', 'lost-1') });
  assert.equal(p.result.status, 'COMPLETED');
  assert.equal(p.result.job_id, a.job_id);
  assert.deepEqual(p.result.proof, a.proof);
  const s = await call(c, 'GetStatus', {});
  assert.ok(s, 'daemon answers');
  // HTTP: the first response is not written (the connection drops), the next is
  const h1 = await httpGet(d.port, '/healthz');
  assert.ok(h1.error, 'first /healthz should fail: ' + JSON.stringify(h1));
  const h2 = await httpGet(d.port, '/healthz');
  assert.equal(h2.code, 200);
  c.close();
  await stop(d);
});

test('a sticky device error quarantines the only device: clear failures, the daemon lives on', async () => {
  const d = await startDaemon('device.msm=1/sticky');
  const c = new proto.ProvingEngine(d.addr, grpc.credentials.createInsecure());
  const r = await call(c, 'Prove', { submit: synth('partitions=1 seed=9') });
  assert.equal(r.result.status, 'FAILED');
  assert.match(r.result.error_message, /no usable device/);
  assert.match(d.err, /quarantined/);
  await assert.rejects(call(c, 'SubmitProof', synth('partitions=1 seed=10')),
    (e) => e.code === grpc.status.UNAVAILABLE && /device/.test(e.details));
  assert.ok(await call(c, 'GetStatus', {}));
  // operators see it: /metrics and /status say the device is quarantined and count its failed prove
  const m = await httpGet(d.port, '/metrics');
  assert.match(m.body, /^czk_device_quarantined\{device="0"\} 1$/m);
  assert.match(m.body, /^czk_device_prove_errors_total\{device="0"\} [1-9]/m);
  assert.match(m.body, /^czk_prove_retries_total 0$/m);
  const st = JSON.parse((await httpGet(d.port, '/status')).body);
  assert.equal(st.devices[0].quarantined, true);
  assert.ok(st.devices[0].prove_errors >= 1);
  c.close();
  await stop(d);
});

// alloc.big: the big buffers of a Filecoin kind's synthesis (witness, a/b/c) come from czk_alloc_big. A 2 KiB
// WindowPoSt key is set up beforehand by `czk setup` (its own process, so its allocations do not count), so the first
// big allocation of the daemon is the first job's witness: that job fails once, clearly (out of memory), a second look
// agrees, nothing stays reserved, and the next job proves.
test('alloc.big: a failed big allocation fails one job clearly; the next job proves', async () => {
  const params = join(dir, 'params');
  mkdirSync(params, { recursive: true });
  const czk = (...args) => execFileSync(CZK, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  czk('setup', '--kind', 'window-post', '--sector-size', '2KiB', '--out', params);
  const out = join(dir, 'wpost');
  czk('gen-vanilla', 'window-post', '--sector-size', '2KiB', '--sectors', '1', '--seed', '3', '--out', out);
  const rq = JSON.parse(readFileSync(join(out, 'request.json'), 'utf8'));
  const submit = {
    proof_kind: 'WINDOW_POST_PARTITION', sector_size: String(rq.sector_size),
    registered_proof: String(rq.registered_proof), vanilla_proofs: rq.vanilla_proofs.map((f) => readFileSync(join(out, f))),
    miner_id: String(rq.miner_id), randomness: Buffer.from(rq.randomness, 'hex'), partition_index: rq.partition_index,
  };
  const d = await startDaemon('alloc.big=1', ['--param-dir', params, '--gpus', 'none']);
  const c = new proto.ProvingEngine(d.addr, grpc.credentials.createInsecure());
  const r = await call(c, 'Prove', { submit });
  assert.equal(r.result.status, 'FAILED');
  assert.match(r.result.error_message, /out of memory/);
  assert.match(d.err, /injected transient fault at alloc\.big/);
  // one outcome: a second look at the job agrees
  const a = await call(c, 'AwaitProof', { job_id: r.result.job_id, timeout_ms: 1000 });
  assert.equal(a.status, 'FAILED');
  assert.equal(a.error_message, r.result.error_message);
  const ok = await call(c, 'Prove', { submit });
  assert.equal(ok.result.status, 'COMPLETED', ok.result.error_message);
  assert.equal(ok.result.proof.length, 192);
  const m = (await httpGet(d.port, '/metrics')).body;
  for (const cat of ['abc', 'witness', 'scratch', 'request'])
    assert.match(m, new RegExp(`^czk_memory_used_bytes\\{category="${cat}"\\} 0$`, 'm'));
  assert.match(m, /^czk_jobs_total\{kind="window-post-2KiB",event="failed"\} 1$/m);
  assert.match(m, /^czk_jobs_total\{kind="window-post-2KiB",event="completed"\} 1$/m);
  c.close();
  await stop(d);
});

// file.read: in the daemon the only read of a whole small file is GetTrace reading the trace it wrote (proof inputs
// come in the request; keys, shapes and circom files are mapped: file.map). The call fails with INTERNAL and a reason,
// the daemon serves on: a job proves and the next GetTrace answers.
test('file.read: a failed file read fails that call only', async () => {
  const d = await startDaemon('file.read=1');
  const c = new proto.ProvingEngine(d.addr, grpc.credentials.createInsecure());
  const admin = new proto.Admin(d.addr, grpc.credentials.createInsecure());
  await assert.rejects(call(admin, 'GetTrace', {}),
    (e) => e.code === grpc.status.INTERNAL && /cannot read the trace back/.test(e.details));
  assert.match(d.err, /injected transient fault at file\.read/);
  const ok = await call(c, 'Prove', { submit: synth('partitions=1 seed=23') });
  assert.equal(ok.result.status, 'COMPLETED', ok.result.error_message);
  const t = await call(admin, 'GetTrace', {});
  assert.ok(JSON.parse(t.chrome_trace_json).traceEvents.length > 0);
  admin.close();
  c.close();
  await stop(d);
});
