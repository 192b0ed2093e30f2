// The image's file set, built without a container engine: exactly the files the Containerfile copies, its own
// `npm ci --omit=dev` in a build folder, its ENV; then the service started as a non-root user (nobody) on a
// tree it cannot write (the code, node_modules and TMPDIR read-only, DATA_DIR its only writable folder), one
// tool of each category run through it, the image's health check, and SIGTERM. Everything is removed after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATEGORIES } from '../../tools/core/define.ts';
import { listTools } from '../../tools/core/registry.ts';
import { bodyOf, fileObject, postRun } from '../helpers/http.ts';
import { pdfPages } from '../helpers/pdf.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';
import { envOf, instructions, stagesOf } from './containerfile.ts';
import { trackProc, type Proc } from './processes.ts';

const REPO = new URL('../../', import.meta.url).pathname;
const NOBODY = 65534;
const ADMIN_TOKEN = 'image-test-admin-token-0123456789abcdefgh';
const CSV = 'id,nombre,importe\n1,Peña,10.5\n2,Zoë,20\n3,Ángel,30\n';

/** Every path under `dir`, relative to it. */
function listing(dir: string, base = dir, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    out.push(path.slice(base.length));
    if (e.isDirectory()) listing(path, base, out);
  }
  return out;
}

/** Runs a shell command of the Containerfile in `cwd`; throws with its output when it fails. */
function sh(command: string, cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync('sh', ['-c', command], { cwd, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 300_000 });
  assert.equal(r.status, 0, `${command}\n${r.stdout}\n${r.stderr}`);
}

test('image file set: production dependencies only, non-root, read-only tree, one tool per category, health check, SIGTERM', { timeout: 400_000 }, async (t) => {
  if (process.getuid?.() !== 0) {
    if (process.env.CI) throw new Error('this test switches to the user nobody: run it as root');
    t.skip('needs root to run the service as another user');
    return;
  }
  const all = instructions();
  const stages = stagesOf(all);
  const [build, final] = [stages[0], stages.at(-1)!];
  // Under /tmp itself: the user nobody must be able to reach it, which a private TMPDIR may not allow.
  const root = mkdtempSync(join(existsSync('/tmp') ? '/tmp' : tmpdir(), 'st-image-'));
  chmodSync(root, 0o755);
  let proc: (Proc & { url: string }) | undefined;
  try {
    // Build stage: its COPYs, then its RUN but the cache clean (that only shrinks the layer, and here would
    // empty this machine's npm cache, which the install is allowed to use).
    const deps = join(root, 'deps');
    mkdirSync(deps);
    for (const copy of build.filter((i) => i.op === 'COPY')) for (const src of copy.args.split(/\s+/).slice(0, -1)) copyFileSync(join(REPO, src), join(deps, src));
    const install = build.find((i) => i.op === 'RUN' && /npm ci/.test(i.args))!.args.split(' && ').filter((part) => !/npm cache clean/.test(part));
    sh(install.join(' && '), deps, { npm_config_prefer_offline: 'true', npm_config_loglevel: 'error' });

    // Final stage: node_modules from the build stage, and the files it copies from the repository.
    const app = join(root, 'app');
    mkdirSync(app);
    for (const copy of final.filter((i) => i.op === 'COPY')) {
      const words = copy.args.split(/\s+/);
      if (words[0].startsWith('--from=')) {
        assert.deepEqual(words.slice(1), ['/app/node_modules', './node_modules']);
        renameSync(join(deps, 'node_modules'), join(app, 'node_modules'));
        continue;
      }
      const dest = words.at(-1)!;
      for (const src of words.slice(0, -1)) cpSync(join(REPO, src), dest === './' ? join(app, src) : join(app, dest), { recursive: true });
    }
    assert.ok(!existsSync(join(app, 'node_modules', 'typescript')), 'no dev dependency in the image');
    assert.ok(!existsSync(join(app, 'test')) && !existsSync(join(app, 'bench')), 'no tests or benchmarks in the image');
    assert.ok(existsSync(join(app, 'node_modules', 'ioredis')), 'production dependencies are');

    // The container's runtime: its own node, a read-only tree and TMPDIR, DATA_DIR writable by nobody only.
    const bin = join(root, 'bin');
    mkdirSync(bin);
    copyFileSync(process.execPath, join(bin, 'node'));
    chmodSync(join(bin, 'node'), 0o755);
    const data = join(root, 'data');
    const tmp = join(root, 'tmp');
    mkdirSync(data, { mode: 0o700 });
    chownSync(data, NOBODY, NOBODY);
    mkdirSync(tmp, { mode: 0o555 });
    sh('chmod -R a-w app', root);
    const before = listing(app);

    const env = { ...envOf(final), HOST: '127.0.0.1', PORT: '0', DATA_DIR: data, TMPDIR: tmp, HOME: tmp, PATH: `${bin}:/usr/bin:/bin`, ADMIN_TOKEN, ANON_RUNS_PER_HOUR: '100' };
    const argv = JSON.parse(final.find((i) => i.op === 'CMD')!.args) as string[];
    assert.equal(argv[0], 'node');
    const child = spawn(join(bin, 'node'), argv.slice(1), { cwd: app, env, uid: NOBODY, gid: NOBODY, stdio: ['ignore', 'pipe', 'pipe'] });
    const started = trackProc(child);
    proc = { ...started, url: (await started.waitFor(/listening on (http:\/\/\S+)/))[1] };
    const url = proc.url;

    // One tool of each category; the PDF converter for conversion, since it needs the fonts inside the image.
    for (const category of CATEGORIES) {
      const tools = listTools().filter((x) => x.category === category && x.input.formats.includes('csv'));
      const tool = tools.find((x) => x.id === 'excel-to-pdf') ?? tools[0];
      assert.ok(tool, `a tool of ${category} takes CSV`);
      const body = tool.input.kind === 'files' ? { files: Array.from({ length: tool.input.min }, (_, i) => fileObject(`parte-${i + 1}.csv`, CSV)) } : { file: fileObject('datos.csv', CSV) };
      const res = await postRun(url, tool.id, body);
      const json = await bodyOf(res);
      assert.equal(res.status, 200, `${tool.id}: ${JSON.stringify(json)}`);
      const bytes = Buffer.from(json.files[0].contentBase64, 'base64');
      if (json.files[0].name.endsWith('.pdf')) assert.match(pdfPages(bytes).join('\n'), /Peña[\s\S]*Zoë[\s\S]*Ángel/, `${tool.id}: text drawn with the embedded fonts`);
      else if (json.files[0].name.endsWith('.xlsx')) assert.ok(JSON.stringify((await readXlsx(bytes))[0].rows).includes('Peña'), `${tool.id}: an xlsx another reader opens`);
      else assert.ok(bytes.toString('utf8').includes('Peña'), `${tool.id}: the data is in the result`);
    }

    // The key file goes to DATA_DIR, written by the service's user; nothing else is written anywhere.
    const created = await fetch(`${url}/admin/api/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ label: 'imagen' }) });
    assert.equal(created.status, 201);
    assert.equal(statSync(join(data, 'api-keys.json')).uid, NOBODY);
    assert.deepEqual(listing(app), before, 'the code tree is unchanged');
    assert.deepEqual(readdirSync(tmp), [], 'nothing is written to TMPDIR');

    // The image's own health check, as the engine runs it: inside, as the service's user, with the image's env.
    const health = JSON.parse(final.find((i) => i.op === 'HEALTHCHECK')!.args.replace(/^.*?CMD\s+/, '')) as string[];
    assert.equal(health[0], 'node');
    const check = spawnSync(join(bin, 'node'), health.slice(1), { cwd: app, env: { ...env, PORT: new URL(url).port }, uid: NOBODY, gid: NOBODY, timeout: 60_000 });
    assert.equal(check.status, 0, `HEALTHCHECK: ${check.stderr}`);

    child.kill('SIGTERM');
    assert.equal(await proc.exited, 0, proc.output());
  } finally {
    await proc?.kill();
    rmSync(root, { recursive: true, force: true });
  }
});
