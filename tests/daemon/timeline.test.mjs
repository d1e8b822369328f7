// The timeline page, black-box: a real `czk daemon` proves a mixed synthetic workload (two circuit sizes, so two key
// loads; mixed priorities; several partitions), `czk trace` fetches its trace over gRPC and writes the page, and headless
// Chromium (Debian's chromium) renders it with #selftest. The page marks <body data-render="ok"> once drawn, or "error"
// with the message in #errors on any script error; with #selftest it zooms (buttons, wheel), pans (drag, shift+wheel),
// folds a job and checks that the view and the axis followed (body[data-selftest]). The test also checks what was
// drawn against the trace itself (device lanes, jobs, key loads, queue-depth step graphs, idle intervals), the
// page's arithmetic on a hand-made trace with known busy and idle shares, hostile names, an empty trace, refusals of
// files that are not traces, and (negative controls) that a thrown error or a syntax error in the page is caught.
// Run: CZK_BIN=build/src/cli/czk node --test tests/daemon/timeline.test.mjs   (CZK_CHROMIUM: the browser to use)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
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
const CHROMIUM = process.env.CZK_CHROMIUM ||
  ['chromium', 'chromium-browser', 'google-chrome'].find((b) => spawnSync('sh', ['-c', 'command -v ' + b]).status === 0);
const dir = mkdtempSync(join(tmpdir(), 'czk-timeline-test-'));
const addr = 'unix:' + join(dir, 'czk.sock');
let daemon, client, stderrText = '';

// Render file#hash in headless Chromium; returns { body: {attr: value}, errors, dom, log }.
function render(file, hash = '#selftest') {
  const r = spawnSync(CHROMIUM, ['--headless', '--disable-gpu', '--no-sandbox', '--disable-dev-shm-usage', '--no-first-run', '--hide-scrollbars',
    '--user-data-dir=' + join(dir, 'chromium-profile'), '--window-size=1400,900', '--virtual-time-budget=5000',
    '--enable-logging=stderr', '--v=0', '--dump-dom', 'file://' + file + hash],
  { encoding: 'utf8', timeout: 120000, maxBuffer: 256 << 20 });
  assert.equal(r.status, 0, 'chromium failed: ' + r.stderr);
  const dom = r.stdout;
  const tag = dom.match(/<body([^>]*)>/);
  assert.ok(tag, 'no <body> in the dumped DOM');
  const body = {};
  for (const m of tag[1].matchAll(/([a-z-]+)="([^"]*)"/g)) body[m[1]] = m[2];
  const errs = dom.match(/<pre id="errors"[^>]*>([\s\S]*?)<\/pre>/);
  // console errors Chromium logs (an uncaught exception prints "Uncaught ..." with the page's source)
  const log = r.stderr.split('\n').filter((l) => /CONSOLE|Uncaught/.test(l)).join('\n');
  return { body, errors: errs ? errs[1] : null, dom, log };
}
// The page rendered cleanly: marker set, the self-test passed, no error text, no console error.
function assertClean(r) {
  assert.equal(r.errors, '', 'the page reported errors: ' + r.errors);
  assert.equal(r.body['data-render'], 'ok', 'render marker: ' + JSON.stringify(r.body) + ' ' + r.log);
  assert.doesNotMatch(r.log, /Uncaught|Error/, r.log);
}
const trace = (json, name) => {
  const j = join(dir, name + '.json'), h = join(dir, name + '.html');
  writeFileSync(j, typeof json === 'string' ? json : JSON.stringify(json));
  return { j, h, run: () => spawnSync(CZK, ['trace', '--from', j, '--html', h], { encoding: 'utf8' }) };
};

before(async () => {
  await new Promise((resolve, reject) => {
    const p = spawn(CZK, ['daemon', '--listen', addr, '--keys-dir', join(dir, 'keys'), '--gpus', 'none',
      '--memory-budget', '2GiB', '--synthesis-workers', '2', '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error('daemon did not start: ' + stderrText)), 60000);
    p.stdout.on('data', (d) => {
      out += d;
      if (/ready on /.test(out)) { clearTimeout(timer); daemon = p; resolve(); }
    });
    p.stderr.on('data', (d) => { stderrText += d; });
    p.on('exit', (code) => { clearTimeout(timer); reject(new Error('daemon exited ' + code + ': ' + stderrText)); });
  });
  client = new proto.ProvingEngine(addr, grpc.credentials.createInsecure());
});

after(() => {
  if (daemon && daemon.exitCode === null) daemon.kill('SIGKILL');
  client?.close();
  rmSync(dir, { recursive: true, force: true });
});

const prove = (k, spec, priority) => new Promise((resolve, reject) => {
  client.Prove({ submit: { proof_kind: 'CZK_SYNTHETIC', sector_size: String(1 << k), priority,
    vanilla_proof: Buffer.from(spec) } }, (err, res) => (err ? reject(err) : resolve(res)));
});

test('a real run renders: device lanes, jobs, key loads, queue depths; zoom/pan self-test; no script error', async () => {
  const jobs = [[8, 'partitions=3 seed=1', 'LOW'], [11, 'partitions=2 seed=2', 'NORMAL'], [8, 'partitions=1 seed=3', 'HIGH'],
    [11, 'partitions=1 seed=4', 'CRITICAL'], [8, 'partitions=2 seed=5', 'NORMAL']];
  const res = await Promise.all(jobs.map(([k, s, p]) => prove(k, s, p)));
  for (const r of res) assert.equal(r.result.status, 'COMPLETED', r.result.error_message);
  const html = join(dir, 'timeline.html'), json = join(dir, 'timeline.json');
  const out = execFileSync(CZK, ['trace', '--addr', addr, '--html', html, '--json', json], { encoding: 'utf8' });
  assert.match(out, /timeline written to/);
  const page = readFileSync(html, 'utf8');
  // self-contained: no script, style or image fetched from anywhere; the only URL is the SVG namespace
  assert.doesNotMatch(page, /<(script|img|iframe)[^>]+src=|<link /);
  for (const u of page.match(/https?:\/\/[^\s"'<>)]+/g) || []) assert.equal(u, 'http://www.w3.org/2000/svg');

  // what the trace holds, to compare with what the page drew
  const ev = JSON.parse(readFileSync(json, 'utf8')).traceEvents;
  const devPids = new Set(ev.filter((e) => e.ph === 'M' && e.name === 'process_name' && /^device/.test(e.args.name)).map((e) => e.pid));
  const jobIds = new Set(ev.filter((e) => e.ph === 'X' && e.pid === 1).map((e) => e.args.job));
  const keyLoads = ev.filter((e) => e.ph === 'X' && e.name === 'key load');
  const idle = ev.filter((e) => e.ph === 'X' && e.cat === 'idle');
  const ctr = new Set(ev.filter((e) => e.ph === 'C').map((e) => e.name));
  assert.ok(devPids.size >= 1);
  assert.equal(jobIds.size, jobs.length);
  assert.ok(keyLoads.length >= 2, 'two circuit sizes: two key loads');
  for (const q of ['synth queue (partitions)', 'gpu queue (partitions)', 'finalize queue (partitions)', 'memory used (bytes)'])
    assert.ok(ctr.has(q), q);

  const r = render(html);
  assertClean(r);
  assert.equal(r.body['data-selftest'], 'ok');
  assert.equal(+r.body['data-devices'], devPids.size);
  assert.ok(+r.body['data-device-rects'] > 0, 'the device lanes hold drawn spans');
  assert.equal(+r.body['data-jobs'], jobs.length);
  assert.ok(+r.body['data-job-rects'] >= jobs.length);
  assert.ok(+r.body['data-keyload-rects'] >= 1, 'key loads drawn');
  assert.equal(+r.body['data-counters'], ctr.size);
  assert.equal(+r.body['data-counter-paths'], ctr.size, 'one step graph per counter');
  assert.equal(+r.body['data-idle-spans'], idle.length, 'every idle interval of the trace is read');
  if (idle.length) assert.ok(+r.body['data-idle-rects'] > 0, 'idle intervals drawn');
  // the legend, the axis and the summary below the chart
  assert.match(r.dom, /id="legend"[^>]*>.*kernel busy.*idle: starved/s);
  assert.ok((r.dom.match(/data-tick="1"/g) || []).length >= 3, 'axis ticks');
  assert.match(r.dom, /<h3>Devices<\/h3><table>.*device 0/s);
  assert.match(r.dom, /<h3>Jobs<\/h3>/);
  assert.ok(r.dom.indexOf('id="chart"') < r.dom.indexOf('id="summary"'), 'the summary is below the chart');
});

test('the page\'s arithmetic: busy % and idle causes of a hand-made trace', () => {
  // one device over 10 ms: kernel busy 5 ms (two overlapping spans count once), idle starved 2 ms, budget 1 ms,
  // key_load 1 ms; 1 ms untracked
  const X = (name, pid, tid, ts, dur, extra = {}) => ({ ph: 'X', name, pid, tid, ts, dur, args: { job: 0 }, ...extra });
  const t = trace({ traceEvents: [
    { ph: 'M', pid: 10, name: 'process_name', args: { name: 'device 0 (test)' } },
    { ph: 'M', pid: 10, tid: 0, name: 'thread_name', args: { name: 'prove worker 0' } },
    X('kernel busy', 10, 100000, 0, 3000), X('kernel busy', 10, 100000, 2000, 2000), X('kernel busy', 10, 100000, 9000, 1000),
    X('idle starved', 10, 100001, 4000, 2000, { cat: 'idle' }), X('idle budget', 10, 100001, 6000, 1000, { cat: 'idle' }),
    X('idle key_load', 10, 100001, 7000, 1000, { cat: 'idle' }),
    X('prove_start', 10, 0, 0, 4000), X('prove_finish', 10, 0, 9000, 1000),
    X('synth', 1, 7 * 256, 0, 500, { args: { job: 7, part: 0 } }), X('prove', 1, 7 * 256, 500, 1500, { args: { job: 7, part: 0 } }),
    { ph: 'C', name: 'gpu queue (partitions)', pid: 2, ts: 0, args: { value: 3 } },
    { ph: 'C', name: 'gpu queue (partitions)', pid: 2, ts: 5000, args: { value: 0 } },
  ] }, 'known');
  assert.equal(t.run().status, 0);
  const r = render(t.h);
  assertClean(r);
  assert.equal(r.body['data-selftest'], 'ok');
  assert.equal(r.body['data-idle-spans'], '3');
  assert.equal(r.body['data-idle-rects'], '3');
  const row = r.dom.match(/<h3>Devices<\/h3><table>.*?<tr><td>device 0 \(test\)<\/td>(.*?)<\/tr>/s);
  assert.ok(row, 'device row in the summary');
  const cells = [...row[1].matchAll(/<td>([^<]*)<\/td>/g)].map((m) => m[1]);
  const head = [...r.dom.match(/<h3>Devices<\/h3><table>(?:<tbody>)?<tr>(.*?)<\/tr>/s)[1].matchAll(/<th>([^<]*)<\/th>/g)].map((m) => m[1]).slice(1);
  const got = Object.fromEntries(head.map((h, i) => [h, cells[i]]));
  assert.equal(got.proves, '3');
  assert.equal(got['kernel busy'], '50.0%');
  assert.equal(got['idle: starved'], '20.0%');
  assert.equal(got['idle: budget'], '10.0%');
  assert.equal(got['idle: key load'], '10.0%');
  assert.equal(got['idle: no work'], '0.0%');
  assert.equal(got.untracked, '10.0%');
  // time-weighted mean of the queue: 3 for 5 ms of 10 ms
  assert.match(r.dom, /<td>gpu queue \(partitions\)<\/td><td>2<\/td><td>3<\/td><td>1\.5<\/td>/);
});

test('hostile names stay text; an empty trace renders; files that are not traces are refused', () => {
  const evil = '</script><script>document.body.setAttribute("data-render","pwned")</script><!--';
  const t = trace({ traceEvents: [{ ph: 'M', pid: 10, name: 'process_name', args: { name: 'device ' + evil } },
    { ph: 'X', name: evil, pid: 10, tid: 0, ts: 0, dur: 10, args: { job: 1 } }] }, 'evil');
  assert.equal(t.run().status, 0);
  const r = render(t.h);
  assertClean(r);
  assert.match(r.dom, /device &lt;\/script&gt;&lt;script&gt;/);
  const e = trace({ traceEvents: [] }, 'empty');
  assert.equal(e.run().status, 0);
  const re = render(e.h);
  assertClean(re);
  assert.equal(re.body['data-selftest'], 'ok');
  assert.match(re.dom, /holds no events/);
  for (const [text, why] of [['{"a":1}', /no "traceEvents" array/], ['{"traceEvents":[', /ends early/], ['[1] x', /text after/]]) {
    const b = trace(text, 'bad');
    const rr = b.run();
    assert.equal(rr.status, 1);
    assert.match(rr.stderr, why);
    assert.doesNotMatch(rr.stderr, /Sanitizer|runtime error/);
  }
});

test('negative controls: a thrown error and a syntax error in the page are caught', () => {
  const t = trace({ traceEvents: [] }, 'ctl');
  assert.equal(t.run().status, 0);
  const page = readFileSync(t.h, 'utf8');
  const thrown = join(dir, 'thrown.html'), syntax = join(dir, 'syntax.html');
  writeFileSync(thrown, page.replace('</body>', '<script>throw new Error("probe-thrown")</script></body>'));
  writeFileSync(syntax, page.replace("'use strict';", "'use strict'; )"));
  const a = render(thrown);
  assert.equal(a.body['data-render'], 'error');
  assert.match(a.errors, /probe-thrown/);
  const b = render(syntax);
  assert.equal(b.body['data-render'], 'error');
  assert.match(b.errors, /script error: .*SyntaxError|Unexpected token/);
});

test('the daemon stops cleanly after serving its trace (no sanitizer report)', async () => {
  const exited = new Promise((resolve) => daemon.on('exit', (code, sig) => resolve({ code, sig })));
  daemon.kill('SIGTERM');
  const r = await exited;
  assert.equal(r.code, 0, stderrText);
  assert.doesNotMatch(stderrText, /ERROR: (AddressSanitizer|LeakSanitizer)|runtime error/);
});
