// Black-box: key and shape files changed on disk under a running daemon (issue 22, defect 1). The synthetic kind's
// cached shape (<keys>/synthetic-k10.r1cs) is mapped by a daemon that loaded it from disk; truncating it, or
// rewriting it in place, used to kill the daemon with SIGBUS on the next prove. Now the job that read the changed
// file fails naming it, the daemon lives, and the next job re-records the shape and proves.
// Run: tests/daemon/run.sh build/src/cli/czk files.test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, statSync, openSync, readSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const grpc = require(join(root, 'node_modules', '@grpc', 'grpc-js'));
const protoLoader = require(join(root, 'node_modules', '@grpc', 'proto-loader'));
const CZK = process.env.CZK_BIN || join(root, 'build', 'src', 'cli', 'czk');
const dir = mkdtempSync(join(tmpdir(), 'czk-files-test-'));
const keys = join(dir, 'keys');
const sock = join(dir, 'czk.sock');
const addr = 'unix:' + sock;
const proto = grpc.loadPackageDefinition(protoLoader.loadSync(join(root, 'proto', 'cuzk_v1.proto'), {
  keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
})).cuzk.v1;
let stderrText = '';
const live = [];

function startDaemon() {
  return new Promise((resolve, reject) => {
    const p = spawn(CZK, ['daemon', '--listen', addr, '--keys-dir', keys, '--memory-budget', '2GiB',
      '--synthesis-workers', '1', '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'pipe'] });
    live.push(p);
    let out = '';
    const timer = setTimeout(() => reject(new Error('daemon did not start: ' + stderrText)), 60000);
    p.stdout.on('data', (d) => { out += d; if (/ready on /.test(out)) { clearTimeout(timer); resolve(p); } });
    p.stderr.on('data', (d) => { stderrText += d; });
    p.on('exit', (code, sig) => { clearTimeout(timer); reject(new Error(`daemon exited ${code} ${sig}: ${stderrText}`)); });
  });
}

function stop(p) {
  return new Promise((resolve) => {
    if (p.exitCode !== null || p.signalCode !== null) return resolve({ code: p.exitCode, sig: p.signalCode });
    p.removeAllListeners('exit');
    p.on('exit', (code, sig) => resolve({ code, sig }));
    p.kill('SIGTERM');
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const call = (c, m, req) => new Promise((resolve, reject) => c[m](req, {}, (e, r) => (e ? reject(e) : resolve(r))));
const prove = (c, seed) => call(c, 'Prove', { submit: { proof_kind: 'CZK_SYNTHETIC', sector_size: String(1 << 10),
  vanilla_proof: Buffer.from(`partitions=1 seed=${seed}`) } });

after(() => {
  for (const p of live) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

test('a mapped shape cache truncated or rewritten in place fails one job naming the file; the daemon lives', async () => {
  // first daemon: records the shape and writes the cache (and the key)
  let d = await startDaemon();
  let c = new proto.ProvingEngine(addr, grpc.credentials.createInsecure());
  let r = await prove(c, 1);
  assert.equal(r.result.status, 'COMPLETED', r.result.error_message);
  c.close();
  assert.equal((await stop(d)).code, 0, stderrText);
  const shape = join(keys, 'synthetic-k10.r1cs');
  assert.ok(statSync(shape).size > 4096);

  for (const change of ['truncate', 'rewrite in place']) {
    // a daemon that loads (maps) the cached shape
    d = await startDaemon();
    c = new proto.ProvingEngine(addr, grpc.credentials.createInsecure());
    r = await prove(c, 2);
    assert.equal(r.result.status, 'COMPLETED', r.result.error_message);
    if (change === 'truncate') {
      truncateSync(shape, 0);
    } else { // the same bytes written over in place (as `cp` of an identical file does): no fault, only the identity
      const fd = openSync(shape, 'r+'); // check can see it
      const b = Buffer.alloc(1);
      readSync(fd, b, 0, 1, 200);
      writeSync(fd, b, 0, 1, 200);
      closeSync(fd);
    }
    r = await prove(c, 3); // SIGBUS killed the daemon here (truncate)
    assert.equal(r.result.status, 'FAILED', `${change}: ${r.result.error_message}`);
    assert.match(r.result.error_message, /changed on disk/, change);
    for (let i = 0; i < 100 && !/synthetic-k10\.r1cs changed on disk/.test(stderrText); i++) await sleep(20);
    assert.match(stderrText, /synthetic-k10\.r1cs changed on disk/, change); // the log names the file
    // the next job reloads the cache, re-recording (and atomically rewriting) it when it no longer loads
    r = await prove(c, 4);
    assert.equal(r.result.status, 'COMPLETED', `${change}: ${r.result.error_message}`);
    assert.ok(statSync(shape).size > 4096, change);
    c.close();
    const s = await stop(d);
    assert.equal(s.code, 0, stderrText);
    assert.doesNotMatch(stderrText, /ERROR: (AddressSanitizer|LeakSanitizer)|runtime error/);
    stderrText = '';
  }
});

test('a corrupted shape cache is re-recorded naming the file; a corrupted key fails naming the file (issue 22 #11)', async () => {
  const shape = join(keys, 'synthetic-k10.r1cs');
  const params = join(keys, 'synthetic-k10.params');
  let fd = openSync(shape, 'r+');
  writeSync(fd, Buffer.from('garbage!'), 0, 8, 0); // the magic
  closeSync(fd);
  let d = await startDaemon();
  let c = new proto.ProvingEngine(addr, grpc.credentials.createInsecure());
  let r = await prove(c, 5);
  assert.equal(r.result.status, 'COMPLETED', r.result.error_message);
  for (let i = 0; i < 100 && !/synthetic-k10\.r1cs: cached shape unusable/.test(stderrText); i++) await sleep(20);
  assert.match(stderrText, /synthetic-k10\.r1cs: cached shape unusable \(malformed input\); re-recording/);
  const head = Buffer.alloc(8);
  fd = openSync(shape, 'r');
  readSync(fd, head, 0, 8, 0);
  closeSync(fd);
  assert.notEqual(head.toString(), 'garbage!'); // rewritten
  c.close();
  assert.equal((await stop(d)).code, 0, stderrText);
  stderrText = '';

  truncateSync(params, 1000);
  d = await startDaemon();
  c = new proto.ProvingEngine(addr, grpc.credentials.createInsecure());
  r = await prove(c, 6);
  assert.equal(r.result.status, 'FAILED');
  // the job's error names the file too (it said only "key load of partition 0 failed: input truncated")
  assert.match(r.result.error_message, /^key load \(the key file \S*synthetic-k10\.params is unusable: input truncated/);
  for (let i = 0; i < 100 && !/synthetic-k10\.params is unusable/.test(stderrText); i++) await sleep(20);
  assert.match(stderrText, /the key file \S*synthetic-k10\.params is unusable: input truncated/);
  assert.equal(d.exitCode, null);
  c.close();
  assert.equal((await stop(d)).code, 0, stderrText);
  assert.doesNotMatch(stderrText, /ERROR: (AddressSanitizer|LeakSanitizer)|runtime error/);
});
