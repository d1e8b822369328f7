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
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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

function startDaemon(faults) {
  const addr = 'unix:' + join(dir, `f${nsock++}.sock`);
  const p = spawn(CZK, ['daemon', '--listen', addr, '--http', '127.0.0.1:0', '--keys-dir', join(dir, 'keys'),
    '--memory-budget', '1GiB', '--synthesis-workers', '1', '--log-level', 'warn'],
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
