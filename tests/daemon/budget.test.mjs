// Request memory in the budget (issue 22, docs/reliability.md "Request memory"): a real `czk daemon` with a 64 MiB
// budget. Every SubmitProof / Prove is charged 4 x its size + 64 KiB (category "request") from before its decode
// until its parse is done: after each job /metrics shows the budget back to the resident keys' bytes and nothing in
// the request category; a 20 MiB request (80 MiB charged) can never be covered and is refused at once with
// RESOURCE_EXHAUSTED and a reason naming the memory budget, while other RPCs are answered; the next job proves.
// Run: CZK_BIN=build/src/cli/czk node --test tests/daemon/budget.test.mjs
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
const dir = mkdtempSync(join(tmpdir(), 'czk-budget-test-'));
const proto = grpc.loadPackageDefinition(protoLoader.loadSync(join(root, 'proto', 'cuzk_v1.proto'), {
  keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
})).cuzk.v1;
let daemon = null;

const call = (c, m, req) => new Promise((resolve, reject) => {
  c[m](req, (err, res) => (err ? reject(err) : resolve(res)));
});
const synth = (spec) => ({ proof_kind: 'CZK_SYNTHETIC', sector_size: String(1 << 8), vanilla_proof: Buffer.from(spec) });

function startDaemon() {
  const addr = 'unix:' + join(dir, 'czk.sock');
  const p = spawn(CZK, ['daemon', '--listen', addr, '--http', '127.0.0.1:0', '--keys-dir', join(dir, 'keys'),
    '--memory-budget', '64MiB', '--synthesis-workers', '1', '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const d = { p, addr, out: '', err: '' };
  daemon = d;
  d.exited = new Promise((resolve) => p.on('exit', (code, sig) => resolve({ code, sig })));
  p.stderr.on('data', (x) => { d.err += x; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('daemon did not start: ' + d.err)), 60000);
    p.stdout.on('data', (x) => {
      d.out += x;
      const m = d.out.match(/ready on \S+(?: \(http port (\d+)\))?/);
      if (m) { clearTimeout(timer); d.port = +m[1]; resolve(d); }
    });
    d.exited.then((r) => { clearTimeout(timer); reject(new Error(`daemon exited ${r.code}: ${d.err}`)); });
  });
}

const metrics = (port) => new Promise((resolve, reject) => {
  request({ host: '127.0.0.1', port, path: '/metrics', timeout: 10000 }, (res) => {
    let body = '';
    res.on('data', (x) => { body += x; });
    res.on('end', () => resolve(body));
  }).on('error', reject).end();
});
const value = (m, re) => {
  let sum = 0, n = 0;
  for (const line of m.split('\n')) {
    const x = line.match(re);
    if (x) sum += Number(x[1]), n++;
  }
  assert.ok(n > 0, `no line matches ${re}`);
  return sum;
};

// the budget holds the resident keys' bytes and nothing else
async function idle(port, where) {
  const m = await metrics(port);
  for (const cat of ['abc', 'witness', 'scratch', 'request'])
    assert.equal(value(m, new RegExp(`^czk_memory_used_bytes\\{category="${cat}"\\} (\\d+)$`)), 0, `${where}: ${cat}`);
  const keys = value(m, /^czk_keys_resident_bytes\{[^}]*device="host"[^}]*\} (\d+)$/);
  assert.ok(keys > 0, `${where}: a key is resident`);
  assert.equal(value(m, /^czk_memory_used_bytes\{category="key"\} (\d+)$/), keys, `${where}: key bytes`);
  return m;
}

after(() => {
  if (daemon) daemon.p.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

test('request bytes count against the budget; a request it can never cover is refused; the next job proves', async () => {
  const d = await startDaemon();
  const c = new proto.ProvingEngine(d.addr, grpc.credentials.createInsecure(),
    { 'grpc.max_send_message_length': 64 << 20 });
  const r1 = await call(c, 'Prove', { submit: synth('partitions=2 seed=1') });
  assert.equal(r1.result.status, 'COMPLETED', r1.result.error_message);
  await idle(d.port, 'after the first job');
  // 20 MiB: 80 MiB charged, more than the 64 MiB budget: refused at once, before it is decoded; GetStatus is
  // answered meanwhile
  const big = synth('x'.repeat(20 << 20));
  const t0 = Date.now();
  const [e1, st] = await Promise.all([
    call(c, 'Prove', { submit: big }).then(() => null, (e) => e),
    call(c, 'GetStatus', {}),
  ]);
  assert.ok(e1, 'the 20 MiB Prove was accepted');
  assert.equal(e1.code, grpc.status.RESOURCE_EXHAUSTED, e1.details);
  assert.match(e1.details, /ProveRequest of \d+ bytes refused: needs 80\.\d MiB of the memory budget/);
  assert.ok(Date.now() - t0 < 5000, 'refused at once');
  assert.ok(st);
  const e2 = await call(c, 'SubmitProof', big).then(() => null, (e) => e);
  assert.equal(e2 && e2.code, grpc.status.RESOURCE_EXHAUSTED);
  assert.match(e2.details, /SubmitProofRequest of \d+ bytes refused: .*memory budget/);
  await idle(d.port, 'after the refusals');
  // 2 MiB (8 MiB charged) fits: it is decoded and reaches the kind, which refuses the bad spec (not the budget)
  const e3 = await call(c, 'SubmitProof', synth('y'.repeat(2 << 20))).then(() => null, (e) => e);
  assert.equal(e3 && e3.code, grpc.status.INVALID_ARGUMENT, e3 && e3.details);
  // the next job proves, and the budget is back to the key bytes
  const r2 = await call(c, 'Prove', { submit: synth('partitions=1 seed=2') });
  assert.equal(r2.result.status, 'COMPLETED', r2.result.error_message);
  const s = await call(c, 'SubmitProof', synth('partitions=1 seed=3'));
  const a = await call(c, 'AwaitProof', { job_id: s.job_id, timeout_ms: 60000 });
  assert.equal(a.status, 'COMPLETED', a.error_message);
  const m = await idle(d.port, 'after the last job');
  assert.ok(value(m, /^czk_memory_peak_bytes (\d+)$/) <= 64 << 20);
  c.close();
  d.p.kill('SIGTERM');
  const r = await d.exited;
  daemon = null;
  assert.equal(r.code, 0, d.err);
});
