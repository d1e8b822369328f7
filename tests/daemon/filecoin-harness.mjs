// What the Filecoin daemon tests (filecoin-post / -porep / -snap .test.mjs) share: the czk binary and a scratch
// folder, a `czk daemon` on a unix socket with the CPU backend, a gRPC client we did not write (@grpc/grpc-js +
// @grpc/proto-loader over czk's proto), Prove calls, `czk verify --request` of a returned proof, and the check that a
// refused request names its reason.
import assert from 'node:assert/strict';
import { spawn, execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const grpc = require(join(root, 'node_modules', '@grpc', 'grpc-js'));
const protoLoader = require(join(root, 'node_modules', '@grpc', 'proto-loader'));
const proto = grpc.loadPackageDefinition(protoLoader.loadSync(join(root, 'proto', 'cuzk_v1.proto'), {
  keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
})).cuzk.v1;

export const CZK = process.env.CZK_BIN || join(root, 'build', 'src', 'cli', 'czk');
export const czk = (...args) => execFileSync(CZK, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
export const czkRc = (...args) => spawnSync(CZK, args, { encoding: 'utf8' });

// A test bench: a fresh folder (name prefix), a daemon started by start(params, budget, workers), call(method, req).
export function bench(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const addr = 'unix:' + join(dir, 'czk.sock');
  let daemon = null, client = null, stderrText = '';
  const b = {
    dir,
    start(params, budget = '4GiB', workers = '2') {
      return new Promise((resolve, reject) => {
        const p = spawn(CZK, ['daemon', '--listen', addr, '--keys-dir', join(dir, 'keys'), '--param-dir', params,
          '--gpus', 'none', '--memory-budget', budget, '--synthesis-workers', workers, '--log-level', 'info'],
        { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        const timer = setTimeout(() => reject(new Error('daemon did not start: ' + stderrText)), 60000);
        p.stdout.on('data', (d) => {
          out += d;
          if (/ready on /.test(out)) {
            clearTimeout(timer);
            daemon = p;
            client = new proto.ProvingEngine(addr, grpc.credentials.createInsecure(),
              { 'grpc.max_receive_message_length': 64 << 20, 'grpc.max_send_message_length': 64 << 20 });
            resolve(p);
          }
        });
        p.stderr.on('data', (d) => { stderrText += d; });
        p.on('exit', (code) => { clearTimeout(timer); reject(new Error('daemon exited ' + code + ': ' + stderrText)); });
      });
    },
    call(m, req) {
      return new Promise((resolve, reject) => {
        client[m](req, {}, (err, res) => (err ? reject(err) : resolve(res)));
      });
    },
    // Prove `submit`; the proof (bytes = 192 x partitions) must verify with `czk verify --request` of g.dir/request.json
    async proveAndVerify(g, submit, params, partitions = 1, ok = /^OK: /) {
      const res = await b.call('Prove', { submit });
      assert.equal(res.result.status, 'COMPLETED', res.result.error_message);
      assert.equal(res.result.proof.length, 192 * partitions);
      const pf = join(g.dir, 'proof.bin');
      writeFileSync(pf, res.result.proof);
      const v = czkRc('verify', '--request', join(g.dir, 'request.json'), '--proof', pf, '--params', params);
      assert.equal(v.status, 0, v.stdout + v.stderr);
      assert.match(v.stdout, ok);
      return pf;
    },
    // A refused request: a gRPC error or a FAILED result whose message matches `why`
    async refused(req, why) {
      let msg;
      try {
        const res = await b.call('Prove', { submit: req });
        assert.notEqual(res.result.status, 'COMPLETED', 'a tampered request was proven');
        msg = res.result.error_message;
      } catch (e) {
        msg = e.details || e.message;
      }
      assert.match(msg, why);
    },
    stop() {
      if (daemon && daemon.exitCode === null) daemon.kill('SIGKILL');
      client?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return b;
}
