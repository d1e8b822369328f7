// Black-box tests of what an operator sees (issue 20 items 2, 5, 6, 7), each against a real `czk daemon` process driven
// over gRPC (@grpc/grpc-js with czk's proto) and HTTP:
//  - parameters where they already are: [srs] param_cache of a cuzk.toml and $FIL_PROOFS_PARAMETER_CACHE are where
//    the daemon finds the v28 files, and /status, /status.html, GetStatus and `czk status` name the file behind each
//    key (path, size, tier);
//  - no silent CPU fallback: a configuration naming cuda:0 on this GPU-less build refuses to start (exit 3, the
//    reason); with allow_cpu_fallback it starts, warns, and /status, GetStatus, metrics and `czk status` say so; a
//    Filecoin job of a 512 MiB+ sector is refused at submit on a CPU-only daemon unless allow_cpu_large_sectors;
//  - key loading: `czk prove` prints a line while the daemon generates the job's key, the result carries the key-load
//    time, and key_load is an idle cause in the metrics and in the trace;
//  - honest status and metrics: one tier vocabulary, idle kinds hidden from `czk status` unless --all, the latency
//    histogram by kind counting jobs however they were awaited, process RSS and build info, and a /metrics that a
//    Prometheus linter would accept (structure checked here; promtool itself in metrics-promtool.test.mjs).
// Run: CZK_BIN=build/src/cli/czk node --test tests/daemon/opstatus.test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const grpc = require(join(root, 'node_modules', '@grpc', 'grpc-js'));
const protoLoader = require(join(root, 'node_modules', '@grpc', 'proto-loader'));
const parsePrometheus = require(join(root, 'node_modules', 'parse-prometheus-text-format'));
const proto = grpc.loadPackageDefinition(protoLoader.loadSync(join(root, 'proto', 'cuzk_v1.proto'), {
  keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
})).cuzk.v1;

const CZK = process.env.CZK_BIN || join(root, 'build', 'src', 'cli', 'czk');
const dir = mkdtempSync(join(tmpdir(), 'czk-opstatus-test-'));
const live = [];
let nsock = 0;

after(() => {
  for (const d of live) if (d.p.exitCode === null) d.p.kill('SIGKILL');
  for (const d of live) d.client?.close();
  rmSync(dir, { recursive: true, force: true });
});

// Start `czk daemon args` (a unix socket of its own unless args name one, HTTP on a free port); resolves with
// { p, addr, port, client, err() } once it is ready, rejects with its exit code and stderr when it exits first.
function daemon(args, { env = process.env, listen = true } = {}) {
  const addr = 'unix:' + join(dir, `d${nsock++}.sock`);
  const full = ['daemon', ...(listen ? ['--listen', addr, '--http', '127.0.0.1:0'] : []), ...args];
  return new Promise((resolve, reject) => {
    const p = spawn(CZK, full, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let out = '', err = '';
    const timer = setTimeout(() => reject(new Error('daemon did not start: ' + err)), 60000);
    p.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/ready on (\S+)(?: \(http port (\d+)\))?/);
      if (m) {
        clearTimeout(timer);
        const a = listen ? addr : m[1];
        const d = { p, addr: a, port: m[2] ? +m[2] : 0, err: () => err,
          client: new proto.ProvingEngine(a, grpc.credentials.createInsecure()),
          admin: new proto.Admin(a, grpc.credentials.createInsecure()) };
        live.push(d);
        resolve(d);
      }
    });
    p.stderr.on('data', (d) => { err += d; });
    p.on('exit', (code) => {
      clearTimeout(timer);
      const e = new Error('daemon exited ' + code + ': ' + err);
      e.code = code;
      e.stderr = err;
      reject(e);
    });
  });
}

const call = (c, m, req) => new Promise((resolve, reject) => c[m](req, {}, (e, r) => (e ? reject(e) : resolve(r))));
const http = async (d, path) => {
  const r = await fetch(`http://127.0.0.1:${d.port}${path}`);
  assert.equal(r.status, 200, path);
  return r;
};
const metrics = async (d) => (await http(d, '/metrics')).text();
const status = async (d) => (await http(d, '/status')).json();
const czk = (d, ...args) => spawnSync(CZK, args, { encoding: 'utf8', env: { ...process.env, CZK_ADDR: d.addr } });
const sample = (text, name, labels = {}) => {
  const fam = parsePrometheus(text).find((f) => f.name === name);
  if (!fam) return undefined;
  const m = fam.metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));
  return m ? Number(m.value ?? m.count) : undefined;
};
const synth = (k, spec, priority = 'NORMAL') => ({ proof_kind: 'CZK_SYNTHETIC', sector_size: String(1 << k), priority,
  vanilla_proof: Buffer.from(spec) });
const TIERS = ['device', 'pinned', 'mapped', 'disk'];
// The series of histogram `name` (parse-prometheus-text-format merges labelled histograms into one): key = the labels
// other than le as text, value = { labels, buckets: [[le, cumulative count]...], sum, count }.
function histograms(text, name) {
  const out = new Map();
  for (const line of text.split('\n')) {
    const m = line.match(/^([a-z_]+)\{([^}]*)\} (\S+)$/);
    if (!m || !m[1].startsWith(name + '_')) continue;
    const labels = Object.fromEntries([...m[2].matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    const le = labels.le;
    delete labels.le;
    const key = JSON.stringify(labels);
    if (!out.has(key)) out.set(key, { labels, buckets: [], sum: NaN, count: NaN });
    const h = out.get(key);
    const suffix = m[1].slice(name.length + 1);
    if (suffix === 'bucket') h.buckets.push([le === '+Inf' ? Infinity : Number(le), Number(m[3])]);
    else if (suffix === 'sum') h.sum = Number(m[3]);
    else if (suffix === 'count') h.count = Number(m[3]);
  }
  return [...out.values()];
}

// One pair of v28 parameter files (a WinningPoSt 2 KiB key of our own, under its published name), made once.
const params = join(dir, 'params');
let paramsMade = false;
function winningParams() {
  if (!paramsMade) {
    execFileSync(CZK, ['setup', '--kind', 'winning-post', '--sector-size', '2KiB', '--out', params], { stdio: 'pipe' });
    paramsMade = true;
  }
  const files = readdirSync(params).filter((f) => f.startsWith('v28-proof-of-spacetime-fallback-'));
  assert.equal(files.length, 2, files.join(','));
  return Object.fromEntries(files.map((f) => [f.endsWith('.vk') ? 'vk' : 'params', join(params, f)]));
}

// The key winning-2k in a daemon's /status, GetStatus and `czk status` names these files with their sizes
async function expectKeyFiles(d, files, tiers) {
  const st = await status(d);
  const src = st.key_sources.find((k) => k.key_id === 'winning-2k');
  assert.ok(src, JSON.stringify(st.key_sources.map((k) => k.key_id)));
  assert.ok(tiers.includes(src.tier), src.tier);
  for (const f of Object.values(files)) {
    const e = src.files.find((x) => x.path === f);
    assert.ok(e, `${f} not in ${JSON.stringify(src.files)}`);
    assert.equal(e.present, true);
    assert.equal(e.bytes, statSync(f).size);
  }
  const g = await call(d.client, 'GetStatus', {});
  const gk = g.czk_keys.find((k) => k.circuit_id === 'winning-2k');
  assert.ok(tiers.includes(gk.czk_tier), gk.czk_tier);
  assert.deepEqual(gk.czk_files.map((f) => f.path).sort(), Object.values(files).sort());
  assert.equal(Number(gk.czk_files.find((f) => f.path === files.params).size_bytes), statSync(files.params).size);
  const html = await (await http(d, '/status.html')).text();
  assert.ok(html.includes(files.params), 'the HTML status names the file');
  const cs = czk(d, 'status');
  assert.equal(cs.status, 0, cs.stderr);
  const mib = (statSync(files.params).size / 2 ** 20).toFixed(1);
  assert.match(cs.stdout, new RegExp(`^winning-2k +(${tiers.join('|')}) .*${files.params.replace(/[.]/g, '\\.')} \\(${mib} MiB\\)`, 'm'));
}

test('item 2: [srs] param_cache and $FIL_PROOFS_PARAMETER_CACHE: keys found by their v28 names, each named in status',
  async () => {
    const files = winningParams();
    // the reference daemon's TOML file: the parameter directory from [srs] param_cache
    const toml = join(dir, 'cuzk.toml');
    writeFileSync(toml, ['[daemon]', `listen = "unix:${join(dir, 'toml.sock')}"`, 'status_listen = "127.0.0.1:0"',
      '[srs]', `param_cache = "${params}"`, '[memory]', 'total_budget = "3GiB"',
      '[czk]', 'gpus = "none"', `keys_dir = "${join(dir, 'keys-toml')}"`, ''].join('\n'));
    const a = await daemon(['--config', toml], { listen: false });
    await expectKeyFiles(a, files, ['disk']);
    // loading it: the same files now back a loaded key (host tier), in the cache's entry too
    const pre = await call(a.client, 'PreloadSRS', { circuit_id: 'winning-2k' });
    assert.equal(pre.already_loaded, false);
    await expectKeyFiles(a, files, ['pinned', 'mapped']);
    const st = await status(a);
    const k = st.keys.find((x) => x.key_id === 'winning-2k');
    assert.ok(['pinned', 'mapped'].includes(k.tier));
    assert.ok(k.files.some((f) => f.path === files.params && f.present));
    const g = await call(a.client, 'GetStatus', {});
    const loaded = g.loaded_srs.find((x) => x.circuit_id === 'winning-2k');
    assert.equal(loaded.tier, loaded.czk_tier === 'mapped' ? 'WARM' : 'HOT');
    assert.ok(loaded.czk_files.some((f) => f.path === files.params));
    a.p.kill('SIGTERM');

    // czk's own configuration without param_dir: $FIL_PROOFS_PARAMETER_CACHE
    const b = await daemon(['--gpus', 'none', '--keys-dir', join(dir, 'keys-env'), '--memory-budget', '3GiB'],
      { env: { ...process.env, FIL_PROOFS_PARAMETER_CACHE: params } });
    await expectKeyFiles(b, files, ['disk']);
    // a kind whose files are absent is listed with them missing (and `czk status` hides it unless --all)
    const st2 = await status(b);
    const miss = st2.key_sources.find((x) => x.key_id === 'winning-32g');
    assert.ok(miss.files.length === 2 && miss.files.every((f) => !f.present && f.path.startsWith(params + '/v28-')));
    assert.doesNotMatch(czk(b, 'status').stdout, /^winning-32g /m);
    assert.match(czk(b, 'status', '--all').stdout, /^winning-32g +disk .*\(missing\)/m);
    b.p.kill('SIGTERM');
  });

test('item 5: cuda:0 configured on a machine where no CUDA device can be opened: refuses, unless allowed', async () => {
  // czk's flags: gpus = "0" names CUDA device 0 (this build has no CUDA backend, or this machine no GPU)
  const common = ['--keys-dir', join(dir, 'keys-gpu'), '--memory-budget', '3GiB'];
  await assert.rejects(daemon(['--gpus', '0', ...common]), (e) => {
    assert.equal(e.code, 3, e.stderr);
    assert.match(e.stderr, /refusing to start: no usable GPU: gpus = "0" names CUDA devices, but /);
    assert.match(e.stderr, /allow_cpu_fallback = true \(--allow-cpu-fallback\)/);
    return true;
  });
  // the reference daemon's TOML: [gpus] devices = [0]
  const toml = join(dir, 'gpu.toml');
  writeFileSync(toml, ['[daemon]', `listen = "unix:${join(dir, 'gpu-toml.sock')}"`, '[gpus]', 'devices = [0]',
    '[srs]', `param_cache = "${params}"`, ''].join('\n'));
  await assert.rejects(daemon(['--config', toml, ...common], { listen: false }), (e) => {
    assert.equal(e.code, 3, e.stderr);
    assert.match(e.stderr, /no usable GPU: gpus = "0" names CUDA devices/);
    return true;
  });
  // allowed: it starts, warns loudly, and every view says so
  const d = await daemon(['--gpus', '0', '--allow-cpu-fallback', ...common]);
  assert.match(d.err(), /warn +daemon: \*\*\* CPU FALLBACK: gpus = "0" names CUDA devices, but .*allow_cpu_fallback = true/);
  const st = await status(d);
  assert.equal(st.daemon.cpu_fallback, true);
  assert.equal(st.daemon.cpu_only, true);
  assert.match(st.daemon.cpu_fallback_reason, /gpus = "0" names CUDA devices/);
  assert.equal(sample(await metrics(d), 'czk_daemon_cpu_fallback'), 1);
  const g = await call(d.client, 'GetStatus', {});
  assert.equal(g.czk_cpu_fallback, true);
  assert.equal(g.gpus.length, 1);
  assert.equal(g.gpus[0].name, 'cpu');
  assert.match(czk(d, 'status').stdout, /\*\*\* CPU FALLBACK: proving on the CPU although gpus = "0"/);
  assert.match(await (await http(d, '/status.html')).text(), /CPU fallback: proving on the CPU although/);

  // a Filecoin-size job is never quietly sent to the CPU: WinningPoSt of a 32 GiB sector is refused at submit
  const big = { proof_kind: 'WINNING_POST', registered_proof: '3', sector_size: String(32 * 2 ** 30),
    randomness: Buffer.alloc(32), vanilla_proofs: [Buffer.alloc(64)] };
  await assert.rejects(call(d.client, 'SubmitProof', big), (e) => {
    assert.equal(e.code, grpc.status.FAILED_PRECONDITION);
    assert.match(e.details, /winning-post-32GiB: refused: this daemon proves on the CPU only \(CPU fallback: no usable GPU\), where a 32GiB sector takes hours; .*allow_cpu_large_sectors = true/);
    return true;
  });
  // small sectors are not refused for that (this one fails later, in its vanilla proof)
  const small = { ...big, registered_proof: '0', sector_size: '2048' };
  await assert.rejects(call(d.client, 'SubmitProof', small), (e) => {
    assert.doesNotMatch(e.details, /CPU only/);
    return true;
  });
  d.p.kill('SIGTERM');
  // gpus = none (CPU on purpose) still refuses 512 MiB and up; allow_cpu_large_sectors lets the job through to its parser
  const n = await daemon(['--gpus', 'none', ...common]);
  assert.doesNotMatch(n.err(), /CPU FALLBACK/);
  assert.equal((await status(n)).daemon.cpu_fallback, false);
  assert.equal(sample(await metrics(n), 'czk_daemon_cpu_fallback'), 0);
  const b512 = { ...big, registered_proof: '2', sector_size: String(512 * 2 ** 20) };
  await assert.rejects(call(n.client, 'SubmitProof', b512), (e) => /512MiB sector takes hours/.test(e.details));
  n.p.kill('SIGTERM');
  const y = await daemon(['--gpus', 'none', '--allow-cpu-large-sectors', ...common]);
  await assert.rejects(call(y.client, 'SubmitProof', big), (e) => {
    assert.doesNotMatch(e.details, /CPU only/);
    return true;
  });
  y.p.kill('SIGTERM');
});

test('item 6: the client says when the daemon generates the key; key-load time; key_load idle cause and trace',
  async () => {
    const d = await daemon(['--gpus', 'none', '--keys-dir', join(dir, 'keys-fresh'), '--memory-budget', '3GiB']);
    // a fresh keys directory: the daemon makes the 2^16 key (a real setup, seconds) before the job can run
    const r = czk(d, 'prove', '--kind', 'synthetic', '--log2', '16', '--spec', 'partitions=1 seed=3');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /^czk: job \d+ waiting: daemon is generating key synthetic-k16 \(\d+\.\d MiB\)$/m);
    const m = r.stdout.match(/COMPLETED, 192 proof bytes, total (\d+) ms \(queue \d+, key load (\d+), synthesis/);
    assert.ok(m, r.stdout);
    assert.ok(+m[2] > 500 && +m[2] <= +m[1], r.stdout);
    // the same through AwaitProof: srs_load_ms carries it (the key is resident now: 0 for a second job)
    const s = await call(d.client, 'SubmitProof', synth(16, 'partitions=1 seed=4'));
    const a = await call(d.client, 'AwaitProof', { job_id: s.job_id, timeout_ms: 0 });
    assert.equal(a.status, 'COMPLETED', a.error_message);
    assert.equal(Number(a.srs_load_ms), 0);
    const again = czk(d, 'prove', '--kind', 'synthetic', '--log2', '16', '--spec', 'seed=5');
    assert.equal(again.status, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /waiting/);
    // key loading is its own idle cause: the device waited for the key, not for synthesis
    const text = await metrics(d);
    const idle = sample(text, 'czk_device_idle_seconds_total', { device: '0', cause: 'key_load' });
    assert.ok(idle > 0.5, `key_load idle ${idle}`);
    const st = await status(d);
    assert.ok(st.devices[0].idle_seconds.key_load > 0.5);
    // the device memory plan's fields (a CPU device has none: limit 0, nothing counted)
    const plan = st.devices[0].memory_plan;
    assert.ok(plan && plan.limit_bytes === 0 && plan.lanes_bytes === 0 && plan.lanes_busy === 0, JSON.stringify(plan));
    assert.equal(typeof st.devices[0].mem_free_bytes, 'number');
    // and in the trace: an "idle key_load" span on the device's idle lane, next to the "key load" span itself
    const t = JSON.parse((await call(d.admin, 'GetTrace', {})).chrome_trace_json);
    const ev = t.traceEvents || t;
    const span = ev.find((e) => e.name === 'idle key_load' && e.cat === 'idle');
    assert.ok(span && span.dur > 500000, JSON.stringify(span));
    assert.ok(ev.some((e) => e.name === 'key load'));
    d.p.kill('SIGTERM');
  });

// What promtool's lint would refuse, checked without it: HELP and TYPE once per family before its samples, names and
// label names well formed, counters end in _total, no series twice, histogram buckets cumulative with +Inf = count.
function lintMetrics(text) {
  const seen = new Set(), helped = new Set(), typed = new Map();
  for (const line of text.split('\n')) {
    if (!line) continue;
    let m = line.match(/^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/);
    if (m) {
      const set = m[1] === 'HELP' ? helped : typed;
      assert.ok(!set.has(m[2]), `${m[1]} ${m[2]} twice`);
      if (m[1] === 'HELP') helped.add(m[2]);
      else typed.set(m[2], m[3]);
      if (m[1] === 'TYPE' && m[3] === 'counter') assert.match(m[2], /_total$/, `counter ${m[2]}`);
      continue;
    }
    m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/);
    assert.ok(m, `malformed line: ${line}`);
    // _bucket/_sum/_count belong to a histogram's family, _sum/_count to a summary's
    const fam = m[1].replace(/_(bucket|sum|count)$/, (x) => {
      const t = typed.get(m[1].slice(0, -x.length));
      return t === 'histogram' || (t === 'summary' && x !== '_bucket') ? '' : x;
    });
    assert.ok(typed.has(fam) && helped.has(fam), `${m[1]} before its HELP/TYPE`);
    for (const l of (m[2] || '').slice(1, -1).split(/,(?=[a-z_]+=")/).filter(Boolean))
      assert.match(l, /^[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"$/, `label ${l}`);
    assert.ok(!seen.has(m[1] + (m[2] || '')), `series twice: ${m[1]}${m[2] || ''}`);
    seen.add(m[1] + (m[2] || ''));
    assert.ok(Number.isFinite(Number(m[3])) || m[3] === '+Inf' || m[3] === 'NaN', line);
  }
  for (const [name, type] of typed) {
    if (type !== 'histogram') continue;
    for (const h of histograms(text, name)) {
      const b = h.buckets;
      for (let i = 1; i < b.length; i++) assert.ok(b[i][0] > b[i - 1][0] && b[i][1] >= b[i - 1][1], `${name} buckets`);
      assert.equal(b[b.length - 1][0], Infinity);
      assert.equal(b[b.length - 1][1], h.count);
      assert.ok(h.sum >= 0);
    }
  }
}

test('item 7: one tier vocabulary, idle kinds hidden, latency by kind however awaited, RSS and build info', async () => {
  const d = await daemon(['--gpus', 'none', '--keys-dir', join(dir, 'keys-7'), '--memory-budget', '3GiB']);
  // three jobs of one kind: by Prove, by SubmitProof + AwaitProof, and by SubmitProof never awaited
  const p = await call(d.client, 'Prove', { submit: synth(9, 'seed=1', 'HIGH') });
  assert.equal(p.result.status, 'COMPLETED', p.result.error_message);
  const s1 = await call(d.client, 'SubmitProof', synth(9, 'seed=2', 'HIGH'));
  assert.equal((await call(d.client, 'AwaitProof', { job_id: s1.job_id })).status, 'COMPLETED');
  await call(d.client, 'SubmitProof', synth(9, 'seed=3', 'HIGH'));
  for (let i = 0; i < 200 && (await status(d)).jobs.completed < 3; i++) await new Promise((r) => setTimeout(r, 50));
  const text = await metrics(d);
  const labels = { kind: 'synthetic-k9', priority: 'high' };
  assert.match(text, /^# TYPE czk_job_latency_seconds histogram$/m);
  const series = histograms(text, 'czk_job_latency_seconds').filter((x) => x.labels.kind === 'synthetic-k9');
  assert.equal(series.length, 1);
  assert.deepEqual(series[0].labels, labels);
  assert.equal(series[0].count, 3);
  assert.ok(series[0].sum > 0);
  assert.deepEqual(series[0].buckets.at(-1), [Infinity, 3]);
  assert.ok(!parsePrometheus(text).some((f) => f.name === 'czk_api_job_latency_seconds'));

  // process RSS and build info
  assert.ok(sample(text, 'czk_process_resident_memory_bytes') > 1 << 20);
  assert.ok(sample(text, 'czk_process_peak_resident_memory_bytes') >= sample(text, 'czk_process_resident_memory_bytes'));
  const version = execFileSync(CZK, ['version'], { encoding: 'utf8' }).trim().replace(/^czk /, '');
  const bi = parsePrometheus(text).find((f) => f.name === 'czk_build_info').metrics[0];
  assert.equal(Number(bi.value), 1);
  assert.equal(bi.labels.version, version);
  assert.ok(['true', 'false'].includes(bi.labels.cuda));
  assert.equal((await status(d)).daemon.version, version);
  assert.equal((await call(d.client, 'GetStatus', {})).czk_version, version);
  lintMetrics(text);

  // one vocabulary for key tiers: /status, metrics, GetStatus (czk_tier) and czk status all say device/pinned/mapped/disk
  const st = await status(d);
  const k9 = st.keys.find((k) => k.key_id === 'synthetic-k9');
  assert.ok(TIERS.includes(k9.tier) && TIERS.includes(k9.host_tier));
  for (const k of st.key_sources) assert.ok(TIERS.includes(k.tier), k.tier);
  for (const m of parsePrometheus(text).find((f) => f.name === 'czk_keys_resident_bytes').metrics)
    assert.ok(TIERS.includes(m.labels.tier), m.labels.tier);
  const g = await call(d.client, 'GetStatus', {});
  assert.equal(g.loaded_srs.find((x) => x.circuit_id === 'synthetic-k9').czk_tier, k9.tier);
  const out = czk(d, 'status');
  assert.equal(out.status, 0, out.stderr);
  // the ON DEVICES column: the plan's tier and lane shape per device ('-' without a device plan: the CPU here)
  assert.match(out.stdout, new RegExp(`^synthetic-k9 +${k9.tier} +\\d+ +0 +(-|(\\d+:(resident|partial|streamed)/(full|compact|lean),?)+) +\\S*synthetic-k9\\.params`, 'm'));
  assert.doesNotMatch(out.stdout, /\b(hot|warm|cold|HOT|WARM|COLD)\b/);
  const js = JSON.parse(czk(d, 'status', '--json').stdout);
  for (const k of js.keys) assert.ok(TIERS.includes(k.tier), k.tier);

  // idle kinds (no job since start, nothing queued) are hidden unless asked
  assert.match(out.stdout, /^synthetic-k9 +0 +0 +3 +0$/m);
  assert.doesNotMatch(out.stdout, /^synthetic-k10 /m);
  const nIdle = g.queues.filter((q) => q.pending === 0 && q.in_progress === 0 && q.czk_submitted === '0').length;
  assert.ok(nIdle > 10);
  assert.match(out.stdout, new RegExp(`^\\(${nIdle} idle kinds not shown; --all lists them\\)$`, 'm'));
  const allOut = czk(d, 'status', '--all').stdout;
  assert.match(allOut, /^synthetic-k10 +0 +0 +0 +0$/m);
  assert.doesNotMatch(allOut, /idle kinds not shown/);
  assert.equal(js.queues.length, g.queues.length);
  d.p.kill('SIGTERM');
});
