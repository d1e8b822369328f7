// Black-box lifecycle tests of `czk daemon` (each test starts its own daemon): SIGHUP reopens the log file; SIGINT
// drains (an in-flight job completes under a long grace; with --drain-grace 100ms a long job is cancelled and the daemon
// exits in time); invalid configuration is rejected at start with the key and the reason (exit code 2);
// `--dump-config` output loads again with `--config` (same effective configuration) and serves; the reference daemon's
// cuzk.toml loads (mapped keys, one warning per ignored key); socket mode, group and parent directory; http://host:port;
// a daemon on TCP serves gRPC clients and the czk client commands; and the `czk bench single|batch|stress` clients against a daemon
// (also --spawn). Clients: @grpc/grpc-js with czk's proto.
// Run: CZK_BIN=build/src/cli/czk node --test tests/daemon/lifecycle.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { statSync, mkdtempSync, rmSync, writeFileSync, readFileSync, renameSync, existsSync, mkdirSync, chownSync, chmodSync,
  symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const grpc = require(join(root, 'node_modules', '@grpc', 'grpc-js'));
const protoLoader = require(join(root, 'node_modules', '@grpc', 'proto-loader'));

const CZK = process.env.CZK_BIN || join(root, 'build', 'src', 'cli', 'czk');
const dir = mkdtempSync(join(tmpdir(), 'czk-lifecycle-test-'));
const keys = join(dir, 'keys'); // shared by every daemon here: a synthetic key is set up once
const proto = grpc.loadPackageDefinition(protoLoader.loadSync(join(root, 'proto', 'cuzk_v1.proto'), {
  keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
})).cuzk.v1;
const live = new Set();
let nsock = 0;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const call = (c, m, req, opts = {}) => new Promise((resolve, reject) => {
  c[m](req, opts, (err, res) => (err ? reject(err) : resolve(res)));
});
const synth = (k, spec, priority = 'NORMAL') => ({
  proof_kind: 'CZK_SYNTHETIC', sector_size: String(1 << k), priority, vanilla_proof: Buffer.from(spec),
});

// Start a daemon; resolves when it printed its ready line. d.exited resolves with {code, sig, ms} (ms since d.t0).
function startDaemon(args, { listen } = {}) {
  const addr = listen || 'unix:' + join(dir, `d${nsock++}.sock`);
  const p = spawn(CZK, ['daemon', '--listen', addr, '--keys-dir', keys, '--memory-budget', '2GiB',
    '--synthesis-workers', '1', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(p);
  const d = { p, addr, out: '', err: '', t0: 0 };
  d.exited = new Promise((resolve) => p.on('exit', (code, sig) => {
    live.delete(p);
    resolve({ code, sig, ms: Date.now() - d.t0 });
  }));
  p.stderr.on('data', (x) => { d.err += x; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('daemon did not start: ' + d.err)), 60000);
    p.stdout.on('data', (x) => {
      d.out += x;
      if (/ready on /.test(d.out)) { clearTimeout(timer); resolve(d); }
    });
    d.exited.then((r) => { clearTimeout(timer); reject(new Error(`daemon exited ${r.code}: ${d.err}`)); });
  });
}
const clientFor = (addr) => new proto.ProvingEngine(addr, grpc.credentials.createInsecure());
const run = (args, env = {}) => spawnSync(CZK, args, { env: { ...process.env, ...env }, encoding: 'utf8',
  timeout: 120000 });

before(async () => {
  // set the k=12 key up once (a real setup, ~1-2 s), so the drain tests time proving only
  const d = await startDaemon([]);
  const c = clientFor(d.addr);
  await call(c, 'PreloadSRS', { circuit_id: 'synthetic-k12' });
  c.close();
  d.p.kill('SIGTERM');
  assert.equal((await d.exited).code, 0, d.err);
});

after(() => {
  for (const p of live) p.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

test('SIGHUP reopens the log file at the configured path', async () => {
  const log = join(dir, 'czk.log');
  const d = await startDaemon(['--log-file', log, '--log-level', 'info']);
  assert.match(readFileSync(log, 'utf8'), /serving cuzk\.v1\.ProvingEngine/);
  renameSync(log, log + '.1'); // what logrotate does
  d.p.kill('SIGHUP');
  for (let i = 0; i < 100 && !existsSync(log); i++) await sleep(50);
  assert.ok(existsSync(log), 'no new log file after SIGHUP');
  for (let i = 0; i < 100 && !/log reopened/.test(readFileSync(log, 'utf8')); i++) await sleep(50);
  assert.match(readFileSync(log, 'utf8'), /SIGHUP: log reopened/);
  assert.doesNotMatch(readFileSync(log + '.1', 'utf8'), /log reopened/);
  // the daemon still serves, and its later lines go to the new file
  const c = clientFor(d.addr);
  const r = await call(c, 'Prove', { submit: synth(8, 'partitions=1 seed=1') });
  assert.equal(r.result.status, 'COMPLETED');
  c.close();
  d.t0 = Date.now();
  d.p.kill('SIGTERM');
  assert.equal((await d.exited).code, 0, d.err);
  assert.match(readFileSync(log, 'utf8'), /SIGTERM: stopping intake/);
  assert.doesNotMatch(readFileSync(log + '.1', 'utf8'), /SIGTERM/);
});

test('SIGINT drains: a job in flight completes under a long grace', async () => {
  const d = await startDaemon(['--drain-grace', '60s', '--log-level', 'info']);
  const c = clientFor(d.addr);
  const prove = call(c, 'Prove', { submit: synth(12, 'partitions=2 seed=5') });
  // wait until the job is in the engine, then interrupt
  for (let i = 0; i < 200; i++) {
    const s = await call(c, 'GetStatus', {});
    if (s.queues.some((q) => q.proof_kind === 'synthetic-k12' && q.pending + q.in_progress > 0)) break;
    await sleep(10);
  }
  d.t0 = Date.now();
  d.p.kill('SIGINT');
  const r = await prove;
  assert.equal(r.result.status, 'COMPLETED', r.result.error_message);
  assert.equal(r.result.proof.length, 2 * 192);
  const e = await d.exited;
  assert.equal(e.code, 0, d.err);
  assert.match(d.err, /SIGINT: stopping intake/);
  assert.doesNotMatch(d.err, /drain grace over/);
  c.close();
});

test('SIGINT with --drain-grace 100ms: the daemon exits in time and the long job is cancelled', async () => {
  const d = await startDaemon(['--drain-grace', '100ms', '--log-level', 'info']);
  const c = clientFor(d.addr);
  // 48 partitions of 2^12: tens of seconds of CPU proving, far longer than the grace
  const sub = await call(c, 'SubmitProof', synth(12, 'partitions=48 seed=9', 'LOW'));
  const awaited = call(c, 'AwaitProof', { job_id: sub.job_id, timeout_ms: 0 }).then(
    (r) => ({ status: r.status }), (e) => ({ code: e.code }));
  for (let i = 0; i < 200; i++) {
    const s = await call(c, 'GetStatus', {});
    if (s.queues.some((q) => q.proof_kind === 'synthetic-k12' && q.in_progress > 0)) break;
    await sleep(10);
  }
  d.t0 = Date.now();
  d.p.kill('SIGINT');
  const e = await d.exited;
  assert.equal(e.code, 0, d.err);
  // grace + at most the partitions already running (one 2^12 partition is well under a second here)
  assert.ok(e.ms < 8000, `exit took ${e.ms} ms`);
  assert.match(d.err, /drain grace over: remaining jobs cancelled/);
  const a = await awaited;
  if (process.env.CZK_TEST_VERBOSE) console.log('drain 100ms: exit after', e.ms, 'ms; waiter got', a);
  // the waiter learns the job did not complete: CANCELLED, or the call ends with the server
  assert.ok(a.status === 'CANCELLED' || (a.code !== undefined && a.code !== grpc.status.OK), JSON.stringify(a));
  assert.notEqual(a.status, 'COMPLETED');
  c.close();
});

test('job ids are not reused after SIGKILL and restart: a pre-crash id is NOT_FOUND', async () => {
  const d1 = await startDaemon([]);
  const c1 = clientFor(d1.addr);
  const a = await call(c1, 'Prove', { submit: synth(12, 'seed=21') });
  assert.equal(a.result.status, 'COMPLETED', a.result.error_message);
  c1.close();
  d1.p.kill('SIGKILL');
  await d1.exited;
  const d2 = await startDaemon([]);
  const c2 = clientFor(d2.addr);
  const b = await call(c2, 'Prove', { submit: synth(12, 'seed=22') });
  assert.equal(b.result.status, 'COMPLETED', b.result.error_message);
  assert.notEqual(b.result.job_id, a.result.job_id);
  await assert.rejects(call(c2, 'AwaitProof', { job_id: a.result.job_id, timeout_ms: 10 }),
    (e) => e.code === grpc.status.NOT_FOUND);
  c2.close();
  d2.p.kill('SIGTERM');
  assert.equal((await d2.exited).code, 0, d2.err);
});

test('callers that go away free their call slots: --max-calls 4, four AwaitProof callers disconnect, GetStatus is served', async () => {
  const d = await startDaemon(['--max-calls', '4', '--drain-grace', '100ms']);
  const c = clientFor(d.addr);
  const sub = await call(c, 'SubmitProof', synth(12, 'partitions=48 seed=31', 'LOW')); // tens of seconds
  // four waiters that give up after 300 ms (their deadline cancels the call: the client is gone)
  const waits = [0, 1, 2, 3].map(() => call(c, 'AwaitProof', { job_id: sub.job_id, timeout_ms: 0 },
    { deadline: Date.now() + 300 }).then(() => 'answered', (e) => e.code));
  assert.deepEqual(await Promise.all(waits), Array(4).fill(grpc.status.DEADLINE_EXCEEDED));
  const t0 = Date.now();
  const s = await call(c, 'GetStatus', {}, { deadline: Date.now() + 3000 });
  assert.ok(Array.isArray(s.queues), 'GetStatus answered');
  await call(c, 'CancelProof', { job_id: sub.job_id }, { deadline: Date.now() + 3000 });
  if (process.env.CZK_TEST_VERBOSE) console.log('GetStatus after departed callers:', Date.now() - t0, 'ms');
  c.close();
  d.p.kill('SIGTERM');
  assert.equal((await d.exited).code, 0, d.err);
});

test('invalid configuration is rejected at start with the key and the reason (exit code 2)', () => {
  const cases = [
    [['--memory-budget', 'lots'], /memory_budget: 'lots' is not a size/],
    [['--drain-grace', 'soon'], /drain_grace: 'soon' is not a duration/],
    [['--synthesis-workers', '0'], /synthesis_workers: must be at least 1/],
    [['--log-level', 'loud'], /log_level: 'loud' is not one of/],
    [['--listen', 'nowhere'], /listen: 'nowhere' is neither unix:PATH nor host:port/],
    [['--no-such-flag', '1'], /--no-such-flag: unknown option/],
  ];
  for (const [args, re] of cases) {
    const r = run(['daemon', '--keys-dir', keys, ...args]);
    assert.equal(r.status, 2, args.join(' ') + ': ' + r.stderr);
    assert.match(r.stderr, /invalid configuration/);
    assert.match(r.stderr, re);
    assert.equal(r.stdout, '', 'nothing served: ' + r.stdout);
  }
  const bad = join(dir, 'bad.conf');
  writeFileSync(bad, '# a config file with a typo\nmemory_budget = 4GiB\nmemory_budgte = 4GiB\n');
  const r = run(['daemon', '--config', bad]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /bad\.conf:3: memory_budgte: unknown configuration key/);
  writeFileSync(bad, 'drain_grace = 10x\n');
  const r2 = run(['daemon', '--config', bad]);
  assert.equal(r2.status, 2, r2.stderr);
  assert.match(r2.stderr, /bad\.conf:1: drain_grace: '10x' is not a duration/);
});

test('without XDG_RUNTIME_DIR, a /tmp/czk-$UID that another user owns or others can write is refused', {
  skip: process.getuid() !== 0 || !existsSync('/usr/bin/setpriv') ? 'needs root and setpriv (runs czk as another uid)' : false,
}, () => {
  const uid = 40000 + (process.pid % 20000); // a user of our own, so the real /tmp/czk-$UID of anyone is untouched
  const priv = join('/tmp', `czk-${uid}`);
  rmSync(priv, { recursive: true, force: true });
  const env = { ...process.env, HOME: dir };
  delete env.XDG_RUNTIME_DIR;
  const as = (args) => spawnSync('/usr/bin/setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', CZK,
    'daemon', '--keys-dir', dir, ...args], { env, encoding: 'utf8', timeout: 60000 });
  try {
    mkdirSync(priv, { mode: 0o755 }); // made first by root
    let r = as([]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`listen: ${priv} is owned by uid 0, not by this user`));
    chownSync(priv, uid, uid);
    chmodSync(priv, 0o777);
    r = as([]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`listen: ${priv} is writable by group or others`));
    rmSync(priv, { recursive: true, force: true });
    symlinkSync(dir, priv);
    r = as([]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /is not a directory \(a symbolic link\)/);
  } finally {
    rmSync(priv, { recursive: true, force: true });
  }
});

test('--dump-config output loads again with --config and serves', async () => {
  const sock = join(dir, 'dumped.sock');
  const d1 = run(['daemon', '--dump-config', '--listen', 'unix:' + sock, '--keys-dir', keys, '--memory-budget', '3GiB',
    '--drain-grace', '7s', '--result-ttl', '90s', '--self-verify=false', '--log-level', 'warn', '--http', '127.0.0.1:0']);
  assert.equal(d1.status, 0, d1.stderr);
  assert.match(d1.stdout, /memory_budget = /);
  const conf = join(dir, 'dumped.conf');
  writeFileSync(conf, d1.stdout);
  const d2 = run(['daemon', '--config', conf, '--dump-config']);
  assert.equal(d2.status, 0, d2.stderr);
  assert.equal(d2.stdout, d1.stdout);
  // every key of the table is in the dump
  const keysDumped = d1.stdout.split('\n').filter((l) => /^[a-z_]+ = /.test(l)).map((l) => l.split(' ')[0]);
  for (const k of ['listen', 'http', 'keys_dir', 'memory_budget', 'drain_grace', 'result_ttl', 'self_verify',
    'log_level', 'log_file', 'trace_file'])
    assert.ok(keysDumped.includes(k), k);
  // and a daemon started from it serves on the dumped socket
  const p = spawn(CZK, ['daemon', '--config', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(p);
  let out = '';
  await new Promise((resolve, reject) => {
    p.stdout.on('data', (x) => { out += x; if (/ready on/.test(out)) resolve(); });
    p.on('exit', (code) => reject(new Error('exited ' + code)));
  });
  assert.match(out, new RegExp('ready on unix:' + sock.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  const c = clientFor('unix:' + sock);
  const s = await call(c, 'GetStatus', {});
  assert.equal(Number(s.pinned_memory_limit_bytes), 3 * 2 ** 30);
  c.close();
  const exited = new Promise((resolve) => p.on('exit', (code) => resolve(code)));
  p.kill('SIGTERM');
  assert.equal(await exited, 0);
  live.delete(p);
});

test("the reference daemon's cuzk.toml loads as it is: keys mapped, each ignored key warned about once", async () => {
  const sock = join(dir, 'cuzk-ref.sock');
  const conf = join(dir, 'cuzk.toml');
  writeFileSync(conf, [
    '# a cuzk.toml as Curio operators have it',
    '[daemon]', `listen = "unix://${sock}"`, 'status_listen = ""',
    '[memory]', 'total_budget = "3GiB"', 'eviction_min_idle = "5m"',
    '[gpus]', 'devices = []', 'gpu_threads = 8', 'gpu_workers_per_device = 2',
    '[synthesis]', 'threads = 0',
    '[pipeline]', 'enabled = true', 'synthesis_concurrency = 1', 'slot_size = 3',
    '[srs]', `param_cache = "${join(dir, 'params')}"`,
    '[logging]', 'level = "info"', 'format = "json"',
    '[czk]', `keys_dir = "${keys}"`, ''].join('\n'));
  const dump = run(['daemon', '--config', conf, '--dump-config']);
  assert.equal(dump.status, 0, dump.stderr);
  assert.match(dump.stdout, /^memory_budget = 3GiB$/m);
  assert.match(dump.stdout, /^# warning: \[gpus\] gpu_threads: ignored: /m);
  const p = spawn(CZK, ['daemon', '--config', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(p);
  let out = '', err = '';
  p.stderr.on('data', (x) => { err += x; });
  await new Promise((resolve, reject) => {
    p.stdout.on('data', (x) => { out += x; if (/ready on/.test(out)) resolve(); });
    p.on('exit', (code) => reject(new Error('exited ' + code + ': ' + err)));
  });
  assert.ok(out.includes('ready on unix://' + sock), out);
  for (const k of ['[memory] eviction_min_idle', '[gpus] gpu_threads', '[pipeline] slot_size'])
    assert.equal(err.split('\n').filter((l) => l.includes('warn') && l.includes(k + ': ignored')).length, 1, k + '\n' + err);
  assert.ok(!/\[daemon\]|\[srs\]|synthesis_concurrency|\[logging\]/.test(err), 'mapped keys are not warned about:\n' + err);
  // [logging] format = "json": every line is one JSON object
  for (const l of err.split('\n').filter((x) => x)) {
    const o = JSON.parse(l);
    assert.ok(o.ts && o.level && o.component && typeof o.msg === 'string', l);
  }
  const c = clientFor('unix:' + sock);
  const s = await call(c, 'GetStatus', {});
  assert.equal(Number(s.pinned_memory_limit_bytes), 3 * 2 ** 30);
  c.close();
  const exited = new Promise((resolve) => p.on('exit', (code) => resolve(code)));
  p.kill('SIGTERM');
  assert.equal(await exited, 0);
  live.delete(p);
});

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

test('a socket Curio can reach: missing directories created, --socket-mode 0660 and --socket-group applied; http://host:port is TCP', async () => {
  const sock = join(dir, 'run', 'curio', 'cuzk.sock');
  const gid = process.getegid();
  const d = await startDaemon(['--socket-mode', '0660', '--socket-group', String(gid)], { listen: 'unix:' + sock });
  const st = statSync(sock);
  assert.ok(st.isSocket());
  assert.equal(st.mode & 0o777, 0o660);
  assert.equal(st.gid, gid);
  assert.equal(statSync(dirname(sock)).mode & 0o777, 0o755);
  // a second daemon on the same socket refuses and the first one keeps serving
  const second = run(['daemon', '--listen', 'unix:' + sock, '--keys-dir', keys, '--memory-budget', '2GiB']);
  assert.notEqual(second.status, 0);
  assert.match(second.stderr, /another czk daemon serves/);
  let c = clientFor(d.addr);
  assert.ok(Array.isArray((await call(c, 'GetStatus', {})).queues));
  c.close();
  d.p.kill('SIGTERM');
  assert.equal((await d.exited).code, 0, d.err);
  // a group that does not exist is refused at start, naming it
  const bad = run(['daemon', '--listen', 'unix:' + sock, '--socket-group', 'no-such-group-czk', '--dump-config']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /socket_group: no group 'no-such-group-czk'/);
  // the reference bench's address form
  const port = await freePort();
  const t = await startDaemon([], { listen: `http://127.0.0.1:${port}` });
  assert.match(t.out, new RegExp(`ready on 127\\.0\\.0\\.1:${port}`));
  const st2 = run(['status', '--addr', `http://127.0.0.1:${port}`]);
  assert.equal(st2.status, 0, st2.stderr);
  c = clientFor(`127.0.0.1:${port}`);
  assert.ok(Array.isArray((await call(c, 'GetStatus', {})).queues));
  c.close();
  t.p.kill('SIGTERM');
  assert.equal((await t.exited).code, 0, t.err);
});

test('czk await / czk cancel take a request id; czk await exits 0 done, 1 failed, 3 cancelled, 4 timeout, 5 unknown; one log line per finished job', async () => {
  const d = await startDaemon([]);
  const c = clientFor(d.addr);
  const help = run(['await', '--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /4 timeout/);
  // a long job under a request id: a short await times out (4), by --request-id or by the bare id
  const long = await call(c, 'SubmitProof', { ...synth(12, 'partitions=48 seed=13', 'LOW'), request_id: 'sector-77' });
  let r = run(['await', '--addr', d.addr, '--request-id', 'sector-77', '--timeout-ms', '50']);
  assert.equal(r.status, 4, r.stdout + r.stderr);
  assert.match(r.stdout, new RegExp(`job ${long.job_id}: TIMEOUT`));
  r = run(['await', '--addr', d.addr, 'sector-77', '--timeout-ms', '50']);
  assert.equal(r.status, 4, r.stdout + r.stderr);
  // cancel by request id; the job id then awaits as cancelled (3), the request id is released (5)
  r = run(['cancel', '--addr', d.addr, '--request-id', 'sector-77']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /request sector-77 cancelled/);
  r = run(['await', '--addr', d.addr, long.job_id]);
  assert.equal(r.status, 3, r.stdout + r.stderr);
  r = run(['await', '--addr', d.addr, '--request-id', 'sector-77']);
  assert.equal(r.status, 5, r.stdout + r.stderr);
  // a completed job by request id (0), its proof written
  const done = await call(c, 'Prove', { submit: { ...synth(12, 'seed=14'), request_id: '12345' } });
  assert.equal(done.result.status, 'COMPLETED', done.result.error_message);
  const out = join(dir, 'await-rid.proof');
  r = run(['await', '--addr', d.addr, '--request-id', '12345', '--out', out]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.equal(readFileSync(out).length, 192);
  c.close();
  d.p.kill('SIGTERM');
  assert.equal((await d.exited).code, 0, d.err);
  // one log line per finished job (issue 20 item 4)
  const lines = (id) => d.err.split('\n').filter((l) => l.includes(`job: job ${id} `));
  assert.equal(lines(long.job_id).length, 1, d.err);
  assert.match(lines(long.job_id)[0], /warn +job: job \d+ cancelled: request=sector-77 kind=synthetic-k12 priority=low partitions=48 queue_ms=\d+ key_load_ms=\d+ synthesis_ms=\d+ prove_ms=\d+ verify_ms=\d+ total_ms=\d+ error="cancelled"/);
  assert.equal(lines(done.result.job_id).length, 1, d.err);
  assert.match(lines(done.result.job_id)[0], /info +job: job \d+ completed: request=12345 kind=synthetic-k12 priority=normal partitions=1 queue_ms=\d+ key_load_ms=\d+ synthesis_ms=\d+ prove_ms=\d+ verify_ms=\d+ total_ms=\d+$/);
  // a failed job (its key cannot be made: keys_dir is a file) exits 1
  const kf = join(dir, 'keys-is-a-file');
  writeFileSync(kf, '');
  const f = await startDaemon(['--keys-dir', kf]);
  const cf = clientFor(f.addr);
  const sub = await call(cf, 'SubmitProof', synth(10, 'seed=1'));
  r = run(['await', '--addr', f.addr, sub.job_id]);
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /FAILED/);
  cf.close();
  f.p.kill('SIGTERM');
  assert.equal((await f.exited).code, 0, f.err);
  assert.match(f.err, new RegExp(`warn +job: job ${sub.job_id} failed: request=- kind=synthetic-k10 .* error="key load of partition 0 failed`));
});

test('a daemon listening on TCP serves gRPC and the czk client commands', async () => {
  const port = await freePort();
  const addr = `127.0.0.1:${port}`;
  const d = await startDaemon([], { listen: addr });
  assert.match(d.out, new RegExp(`ready on 127\\.0\\.0\\.1:${port}`));
  const c = clientFor(addr);
  const r = await call(c, 'Prove', { submit: synth(8, 'partitions=2 seed=3', 'HIGH') });
  assert.equal(r.result.status, 'COMPLETED', r.result.error_message);
  assert.equal(r.result.proof.length, 2 * 192);
  c.close();
  const st = run(['status', '--json', '--addr', addr]);
  assert.equal(st.status, 0, st.stderr);
  assert.ok(JSON.parse(st.stdout).total_proofs_completed >= 1);
  const sub = run(['submit', '--kind', 'synthetic', '--log2', '8', '--spec', 'partitions=1 seed=4'], { CZK_ADDR: addr });
  assert.equal(sub.status, 0, sub.stderr);
  const aw = run(['await', '--addr', addr, sub.stdout.trim()]);
  assert.equal(aw.status, 0, aw.stderr);
  assert.match(aw.stdout, /COMPLETED, 192 proof bytes/);
  d.t0 = Date.now();
  d.p.kill('SIGTERM');
  assert.equal((await d.exited).code, 0, d.err);
});

test('czk bench single/batch/stress against a daemon, and --spawn', async () => {
  const d = await startDaemon([]);
  const single = run(['bench', 'single', '--addr', d.addr, '-n', '3', '--log2', '8', '--parts', '2']);
  assert.equal(single.status, 0, single.stderr);
  assert.match(single.stdout, /3\/3 jobs verified/);
  assert.match(single.stdout, /synthetic-k8 x2 +3 +\d+\.\d{3}/);
  assert.match(single.stdout, /6 proofs in [\d.]+ s/);
  const batch = run(['bench', 'batch', '--addr', d.addr, '-n', '5', '--log2', '8', '--priority', 'high']);
  assert.equal(batch.status, 0, batch.stderr);
  assert.match(batch.stdout, /5\/5 jobs verified/);
  assert.match(batch.stdout, /client \(submit->await\) +5 /);
  assert.match(batch.stdout, /engine \(total_ms\) +5 /);
  const stress = run(['bench', 'stress', '--addr', d.addr, '--duration', '2', '--uniform',
    '--mix', 'k=8:low:2:parts=2,k=9:critical:3']);
  assert.equal(stress.status, 0, stress.stderr);
  // uniform arrivals: 2 s at 2/s and 3/s -> 4 + 6 jobs (arrivals at 0.5, 1.0, 1.5 (and 2.0 excluded) ...)
  const m = stress.stdout.match(/(\d+)\/(\d+) jobs verified/);
  assert.ok(m && m[1] === m[2] && +m[1] >= 7 && +m[1] <= 10, stress.stdout);
  assert.match(stress.stdout, /^critical +\d+ /m);
  assert.match(stress.stdout, /^low +\d+ /m);
  assert.match(stress.stdout, /IDLE % of wall by cause: +starved +budget +transfer +lock +no_work +key_load/);
  const dev = stress.stdout.match(/^0 +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+)$/m);
  assert.ok(dev, stress.stdout);
  const [wall, busy, pctBusy, ...idle] = dev.slice(1).map(Number);
  assert.ok(wall > 1.5 && busy > 0 && busy <= wall, stress.stdout);
  // busy % and the idle causes account for the wall time (rounding to 0.1 each)
  assert.ok(Math.abs(pctBusy + idle.reduce((a, b) => a + b, 0) - 100) < 2, stress.stdout);
  assert.match(stress.stderr, /\] submitted \d+ +done \d+ +failed 0 +in flight \d+ +device busy/);
  // a size the daemon does not serve (2^30): PreloadSRS fails, exit code 1
  const bad = run(['bench', 'single', '--addr', d.addr, '-n', '1', '--log2', '30']);
  assert.equal(bad.status, 1);
  // no daemon at the address: an error and exit code 1
  const none = run(['bench', 'single', '--addr', 'unix:' + join(dir, 'nothing.sock'), '-n', '1']);
  assert.equal(none.status, 1);
  assert.match(none.stderr, /unreachable|PreloadSRS/);
  d.t0 = Date.now();
  d.p.kill('SIGTERM');
  assert.equal((await d.exited).code, 0, d.err);
  // --spawn: one command starts a private daemon and stops it cleanly
  const sp = run(['bench', 'single', '--spawn', '--keys-dir', keys, '-n', '2', '--log2', '8',
    '--daemon-args', '--synthesis-workers 1 --memory-budget 1GiB']);
  assert.equal(sp.status, 0, sp.stderr);
  assert.match(sp.stdout, /2\/2 jobs verified/);
  assert.match(sp.stderr, /spawned daemon stopped \(clean exit\)/);
  assert.equal(run(['bench', 'single', '--no-such-option']).status, 2);
  assert.equal(run(['bench', 'stress', '--mix', 'k=8:sometimes:1']).status, 2);
  assert.equal(run(['bench', 'stress', '--log2', '8']).status, 2);
  assert.match(run(['bench', 'stress', '--help']).stdout, /--mix SPEC/);
});
