// Black-box tests of `czk daemon` through a gRPC client we did not write (@grpc/grpc-js + @grpc/proto-loader loading
// czk's proto), its HTTP endpoints (/metrics parsed by parse-prometheus-text-format, /status, /healthz), the `czk`
// client commands, bad input over the wire, and SIGTERM with work in flight.
// Run: CZK_BIN=build/src/cli/czk node --test tests/daemon/daemon.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const grpc = require(join(root, 'node_modules', '@grpc', 'grpc-js'));
const protoLoader = require(join(root, 'node_modules', '@grpc', 'proto-loader'));
const parsePrometheus = require(join(root, 'node_modules', 'parse-prometheus-text-format'));

const CZK = process.env.CZK_BIN || join(root, 'build', 'src', 'cli', 'czk');
const dir = mkdtempSync(join(tmpdir(), 'czk-daemon-test-'));
const sock = join(dir, 'czk.sock');
const addr = 'unix:' + sock;
let daemon, httpPort, client, admin, stderrText = '';

const pkgDef = protoLoader.loadSync(join(root, 'proto', 'cuzk_v1.proto'), {
  keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
});
const proto = grpc.loadPackageDefinition(pkgDef).cuzk.v1;

function startDaemon(extra = []) {
  return new Promise((resolve, reject) => {
    const p = spawn(CZK, ['daemon', '--listen', addr, '--http', '127.0.0.1:0', '--keys-dir', join(dir, 'keys'),
      '--memory-budget', '3GiB', '--synthesis-workers', '2', '--log-level', 'info', ...extra],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error('daemon did not start: ' + stderrText)), 60000);
    p.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/ready on \S+(?: \(http port (\d+)\))?/);
      if (m) { clearTimeout(timer); resolve({ p, port: m[1] ? +m[1] : 0 }); }
    });
    p.stderr.on('data', (d) => { stderrText += d; });
    p.on('exit', (code) => { clearTimeout(timer); reject(new Error('daemon exited ' + code + ': ' + stderrText)); });
  });
}

const call = (c, m, req, opts = {}) => new Promise((resolve, reject) => {
  c[m](req, opts, (err, res) => (err ? reject(err) : resolve(res)));
});

before(async () => {
  const d = await startDaemon();
  daemon = d.p;
  httpPort = d.port;
  client = new proto.ProvingEngine(addr, grpc.credentials.createInsecure(),
    { 'grpc.max_receive_message_length': 256 << 20, 'grpc.max_send_message_length': 300 << 20 });
  admin = new proto.Admin(addr, grpc.credentials.createInsecure());
});

after(() => {
  if (daemon && daemon.exitCode === null) daemon.kill('SIGKILL');
  client?.close();
  admin?.close();
  rmSync(dir, { recursive: true, force: true });
});

const synth = (k, spec, priority = 'NORMAL', request_id = '') => ({
  request_id, proof_kind: 'CZK_SYNTHETIC', sector_size: String(1 << k), priority,
  vanilla_proof: Buffer.from(spec),
});

test('socket is owner-only', () => {
  const st = statSync(sock);
  assert.equal(st.mode & 0o077, 0);
});

test('Prove returns a verified proof; Submit + Await; duplicate request ids attach', async () => {
  const r = await call(client, 'Prove', { submit: synth(8, 'partitions=2 seed=1') });
  assert.equal(r.result.status, 'COMPLETED', r.result.error_message);
  assert.equal(r.result.proof.length, 2 * 192);

  const a = await call(client, 'SubmitProof', synth(8, 'partitions=1 seed=2', 'HIGH', 'req-dup-1'));
  const b = await call(client, 'SubmitProof', synth(8, 'partitions=1 seed=2', 'HIGH', 'req-dup-1'));
  assert.equal(a.job_id, b.job_id);
  const w = await call(client, 'AwaitProof', { job_id: a.job_id, timeout_ms: 0 });
  assert.equal(w.status, 'COMPLETED');
  assert.equal(w.proof.length, 192);
  // no vanilla_proof at all (the field absent on the wire): one partition of seed 1 (UBSan aborted here: issue 22 #9)
  const n = await call(client, 'Prove', { submit: { proof_kind: 'CZK_SYNTHETIC', sector_size: String(1 << 8) } });
  assert.equal(n.result.status, 'COMPLETED', n.result.error_message);
  assert.equal(n.result.proof.length, 192);
});

test('Await honours timeout_ms; Cancel cancels; cancel of a finished job is FAILED_PRECONDITION', async () => {
  const s = await call(client, 'SubmitProof', synth(12, 'partitions=16 seed=3', 'LOW'));
  const t = await call(client, 'AwaitProof', { job_id: s.job_id, timeout_ms: 1 });
  assert.equal(t.status, 'TIMEOUT');
  const c = await call(client, 'CancelProof', { job_id: s.job_id });
  assert.equal(typeof c.was_running, 'boolean');
  const w = await call(client, 'AwaitProof', { job_id: s.job_id, timeout_ms: 0 });
  assert.equal(w.status, 'CANCELLED');
  await assert.rejects(call(client, 'CancelProof', { job_id: s.job_id }),
    (e) => e.code === grpc.status.FAILED_PRECONDITION);
});

test('bad input over the wire gets the right status codes', async () => {
  await assert.rejects(call(client, 'SubmitProof', { proof_kind: 'POREP_SEAL_COMMIT', registered_proof: '99',
    vanilla_proof: Buffer.from('x') }), (e) => e.code === grpc.status.INVALID_ARGUMENT && /not a seal proof/.test(e.details));
  // a PoRep kind whose partition cannot fit this daemon's 3 GiB budget (2 KiB: a 2^22 domain) is refused as such
  await assert.rejects(call(client, 'SubmitProof', { proof_kind: 'POREP_SEAL_COMMIT', vanilla_proof: Buffer.from('x') }),
    (e) => e.code === grpc.status.RESOURCE_EXHAUSTED && /porep-c2-2KiB/.test(e.details));
  await assert.rejects(call(client, 'SubmitProof', { proof_kind: 'PROOF_KIND_UNSPECIFIED' }),
    (e) => e.code === grpc.status.INVALID_ARGUMENT);
  await assert.rejects(call(client, 'SubmitProof', synth(8, 'partitions=zzz')),
    (e) => e.code === grpc.status.INVALID_ARGUMENT);
  await assert.rejects(call(client, 'SubmitProof', synth(8, 'partitions=1000000')),
    (e) => e.code === grpc.status.INVALID_ARGUMENT);
  await assert.rejects(call(client, 'SubmitProof', { ...synth(8, ''), sector_size: '1000' }),
    (e) => e.code === grpc.status.INVALID_ARGUMENT);
  await assert.rejects(call(client, 'SubmitProof', { proof_kind: 'CZK_CIRCOM', vanilla_proofs: [Buffer.from('../etc')] }),
    (e) => e.code === grpc.status.INVALID_ARGUMENT);
  await assert.rejects(call(client, 'AwaitProof', { job_id: '987654321', timeout_ms: 10 }),
    (e) => e.code === grpc.status.NOT_FOUND);
  await assert.rejects(call(client, 'AwaitProof', { job_id: 'garbage', timeout_ms: 10 }),
    (e) => e.code === grpc.status.NOT_FOUND);
  await assert.rejects(call(client, 'CancelProof', { job_id: '987654321' }),
    (e) => e.code === grpc.status.NOT_FOUND);
  const ev = await call(client, 'EvictSRS', { circuit_id: 'no-such-key' });
  assert.equal(ev.was_loaded, false);
  // a job that can never fit the 3 GiB budget (2^26 constraints), and a size that does not exist (2^30)
  await assert.rejects(call(client, 'SubmitProof', synth(26, 'partitions=1')),
    (e) => e.code === grpc.status.RESOURCE_EXHAUSTED);
  await assert.rejects(call(client, 'SubmitProof', synth(30, 'partitions=1')),
    (e) => e.code === grpc.status.INVALID_ARGUMENT);
  // oversize message (over the 128 MiB default) is refused by the transport
  const big = Buffer.alloc((128 << 20) + 1024);
  await assert.rejects(call(client, 'SubmitProof', { ...synth(8, ''), vanilla_proof: big }),
    (e) => e.code === grpc.status.RESOURCE_EXHAUSTED);
  // garbage bytes on the wire: a raw call with an undecodable body
  const raw = new grpc.Client(addr, grpc.credentials.createInsecure());
  await assert.rejects(new Promise((res, rej) => raw.makeUnaryRequest('/cuzk.v1.ProvingEngine/SubmitProof',
    (x) => x, (x) => x, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), (e, r) => (e ? rej(e) : res(r)))),
  (e) => e.code === grpc.status.INVALID_ARGUMENT);
  raw.close();
  // still serving
  const r = await call(client, 'Prove', { submit: synth(8, 'partitions=1 seed=9') });
  assert.equal(r.result.status, 'COMPLETED');
});

test('decoding is bounded: a SubmitProof of many tiny unknown fields is refused without ~46x its size in memory', async () => {
  const hwm = () => +readFileSync(`/proc/${daemon.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/)[1] * 1024;
  const n = 16 << 20;
  const body = Buffer.alloc(n);
  body[0] = 0x10; body[1] = 100; // proof_kind = CZK_SYNTHETIC, then field 15 = 0 over and over
  for (let i = 2; i + 1 < n; i += 2) { body[i] = 15 << 3; body[i + 1] = 0; }
  const before = hwm();
  const raw = new grpc.Client(addr, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': 64 << 20 });
  await assert.rejects(new Promise((res, rej) => raw.makeUnaryRequest('/cuzk.v1.ProvingEngine/SubmitProof',
    (x) => x, (x) => x, body, (e, r) => (e ? rej(e) : res(r)))),
  (e) => e.code === grpc.status.RESOURCE_EXHAUSTED && /too many fields/.test(e.details));
  raw.close();
  const grew = hwm() - before;
  assert.ok(grew < 20 * n, `peak RSS grew by ${grew} bytes for a ${n}-byte message`);
  // a 100 KiB job id: over the small-request limit
  await assert.rejects(call(client, 'AwaitProof', { job_id: '7'.repeat(100 << 10), timeout_ms: 1 }),
    (e) => e.code === grpc.status.RESOURCE_EXHAUSTED);
});

test('many concurrent clients', async () => {
  const jobs = [];
  for (let i = 0; i < 12; i++) {
    const c = new proto.ProvingEngine(addr, grpc.credentials.createInsecure());
    jobs.push(call(c, 'Prove', { submit: synth(8, `partitions=1 seed=${100 + i}`, i % 3 ? 'NORMAL' : 'CRITICAL') })
      .finally(() => c.close()));
  }
  const rs = await Promise.all(jobs);
  for (const r of rs) assert.equal(r.result.status, 'COMPLETED');
});

test('GetStatus, GetMetrics, Preload/Evict, GetTrace', async () => {
  const s = await call(client, 'GetStatus', {});
  assert.ok(s.gpus.length >= 1);
  assert.ok(Number(s.total_proofs_completed) >= 3);
  assert.ok(Number(s.pinned_memory_limit_bytes) === 3 * 2 ** 30);
  assert.ok(s.queues.some((q) => q.proof_kind === 'synthetic-k8'));
  const p = await call(client, 'PreloadSRS', { circuit_id: 'synthetic-k9' });
  assert.equal(p.already_loaded, false);
  const p2 = await call(client, 'PreloadSRS', { circuit_id: 'synthetic-k9' });
  assert.equal(p2.already_loaded, true);
  const e = await call(client, 'EvictSRS', { circuit_id: 'synthetic-k9' });
  assert.equal(e.was_loaded, true);
  assert.ok(Number(e.freed_bytes) > 0);
  const m = await call(client, 'GetMetrics', {});
  const fams = parsePrometheus(m.prometheus_text);
  assert.ok(fams.find((f) => f.name === 'czk_device_busy_seconds_total'));
  const t = await call(admin, 'GetTrace', {});
  const tr = JSON.parse(t.chrome_trace_json);
  assert.ok((tr.traceEvents || tr).length > 0);
});

test('HTTP /metrics parses and counters move; /status is JSON; /healthz', async () => {
  assert.ok(httpPort > 0);
  const base = `http://127.0.0.1:${httpPort}`;
  const h = await fetch(base + '/healthz');
  assert.equal(h.status, 200);
  const count = async () => {
    const fams = parsePrometheus(await (await fetch(base + '/metrics')).text());
    const f = fams.find((x) => x.name === 'czk_partitions_proved_total');
    return f ? f.metrics.reduce((a, m) => a + Number(m.value), 0) : 0;
  };
  const before = await count();
  await call(client, 'Prove', { submit: synth(8, 'partitions=2 seed=77') });
  const afterCount = await count();
  assert.equal(afterCount - before, 2);
  const fams = parsePrometheus(await (await fetch(base + '/metrics')).text());
  for (const f of fams) assert.match(f.name, /^czk_[a-z0-9_]+$/);
  const hist = fams.find((x) => x.name === 'czk_job_latency_seconds');
  assert.equal(hist.type, 'HISTOGRAM');
  const st = await (await fetch(base + '/status')).json();
  for (const k of ['uptime_seconds', 'queues', 'memory', 'devices', 'workers', 'kinds', 'keys', 'jobs'])
    assert.ok(k in st, k);
  assert.equal((await fetch(base + '/nope')).status, 404);
});

test('HTTP: 200 idle connections do not lock /healthz out (issue 22 #11)', async () => {
  const net = await import('node:net');
  const idle = [];
  for (let i = 0; i < 200; i++) {
    const s = net.createConnection({ host: '127.0.0.1', port: httpPort });
    s.on('error', () => {});
    idle.push(s);
  }
  await Promise.all(idle.map((s) => new Promise((res) => (s.connecting ? s.once('connect', res) : res()))));
  const t0 = Date.now();
  const h = await fetch(`http://127.0.0.1:${httpPort}/healthz`, { signal: AbortSignal.timeout(4000) });
  assert.equal(h.status, 200);
  assert.ok(Date.now() - t0 < 4000);
  for (const s of idle) s.destroy();
});

test('czk client commands', () => {
  const env = { ...process.env, CZK_ADDR: addr };
  const id = execFileSync(CZK, ['submit', '--kind', 'synthetic', '--log2', '8', '--spec', 'partitions=1 seed=5'],
    { env }).toString().trim();
  assert.match(id, /^\d+$/);
  const out = join(dir, 'proof.bin');
  const aw = execFileSync(CZK, ['await', '--out', out, id], { env }).toString();
  assert.match(aw, /COMPLETED/);
  assert.equal(readFileSync(out).length, 192);
  const st = execFileSync(CZK, ['status', '--json'], { env }).toString();
  assert.ok(JSON.parse(st).total_proofs_completed >= 1);
  assert.match(execFileSync(CZK, ['metrics'], { env }).toString(), /czk_jobs_total/);
  const html = join(dir, 't.html');
  execFileSync(CZK, ['trace', '--html', html], { env });
  assert.match(readFileSync(html, 'utf8'), /czk timeline/);
  assert.throws(() => execFileSync(CZK, ['cancel', '424242'], { env, stdio: 'pipe' }));
});

test('SIGTERM with work in flight: clean exit', async () => {
  const s = await call(client, 'SubmitProof', synth(12, 'partitions=4 seed=8'));
  assert.match(s.job_id, /^\d+$/);
  const exited = new Promise((resolve) => daemon.on('exit', (code, sig) => resolve({ code, sig })));
  daemon.kill('SIGTERM');
  const r = await exited;
  assert.equal(r.code, 0, stderrText);
  assert.doesNotMatch(stderrText, /ERROR: (AddressSanitizer|LeakSanitizer)|runtime error/);
});
