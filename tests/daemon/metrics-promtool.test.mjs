// `promtool check metrics` (Prometheus' own linter) on a real daemon's /metrics and GetMetrics text: idle, then after
// jobs of two kinds and priorities (latency histogram series), a refused request (request counters by code) and a
// loaded key (key series). Run through tests/daemon/promtool.sh, which skips when promtool is missing.
// Run: PROMTOOL=promtool CZK_BIN=build/src/cli/czk node --test tests/daemon/metrics-promtool.test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const grpc = require(join(root, 'node_modules', '@grpc', 'grpc-js'));
const protoLoader = require(join(root, 'node_modules', '@grpc', 'proto-loader'));
const proto = grpc.loadPackageDefinition(protoLoader.loadSync(join(root, 'proto', 'cuzk_v1.proto'), {
  keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
})).cuzk.v1;
const CZK = process.env.CZK_BIN || join(root, 'build', 'src', 'cli', 'czk');
const PROMTOOL = process.env.PROMTOOL || 'promtool';
const dir = mkdtempSync(join(tmpdir(), 'czk-promtool-test-'));
let daemon, client;

after(() => {
  if (daemon && daemon.exitCode === null) daemon.kill('SIGKILL');
  client?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = (m, req) => new Promise((resolve, reject) => client[m](req, {}, (e, r) => (e ? reject(e) : resolve(r))));

function lint(text, what) {
  const r = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
  assert.equal(r.error, undefined, `${PROMTOOL}: ${r.error}`);
  assert.equal(r.status, 0, `${what}: promtool check metrics:\n${r.stdout}${r.stderr}`);
  assert.equal((r.stdout + r.stderr).trim(), '', `${what}: ${r.stdout}${r.stderr}`);
}

test('promtool check metrics accepts /metrics and GetMetrics, idle and after work', async () => {
  const addr = 'unix:' + join(dir, 'czk.sock');
  const port = await new Promise((resolve, reject) => {
    daemon = spawn(CZK, ['daemon', '--listen', addr, '--http', '127.0.0.1:0', '--gpus', 'none', '--keys-dir',
      join(dir, 'keys'), '--memory-budget', '2GiB'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    daemon.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http port (\d+)/);
      if (m) resolve(+m[1]);
    });
    daemon.stderr.on('data', (d) => { err += d; });
    daemon.on('exit', (code) => reject(new Error(`daemon exited ${code}: ${err}`)));
  });
  client = new proto.ProvingEngine(addr, grpc.credentials.createInsecure());
  const scrape = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  lint(await scrape(), 'idle');
  for (const [k, prio] of [[8, 'HIGH'], [9, 'LOW'], [8, 'NORMAL']]) {
    const r = await call('Prove', { submit: { proof_kind: 'CZK_SYNTHETIC', sector_size: String(1 << k), priority: prio,
      vanilla_proof: Buffer.from('partitions=2') } });
    assert.equal(r.result.status, 'COMPLETED', r.result.error_message);
  }
  await assert.rejects(call('SubmitProof', { proof_kind: 'CZK_SYNTHETIC', sector_size: '3' }));
  await call('PreloadSRS', { circuit_id: 'synthetic-k10' });
  const text = await scrape();
  assert.match(text, /^czk_job_latency_seconds_count\{kind="synthetic-k8",priority="high"\} 1$/m);
  lint(text, 'after work');
  lint((await call('GetMetrics', {})).prometheus_text, 'GetMetrics');
  daemon.kill('SIGTERM');
});
