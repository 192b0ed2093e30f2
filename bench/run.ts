// `npm run bench`: the service against the programs people use for the same jobs (issues 3 and 5).
//
// It generates its inputs (bench/inputs.ts, seeded: nothing large is committed), then, for each task, runs
// the service four ways (in this process through the kernel's `execute`; in a fresh process per run for a
// clean peak RSS; over HTTP against the real server with download=true, multipart and JSON, with where the
// time went: bench/phase-probe.ts) alternating with every installed
// peer on the same file (bench/peers.ts; bench/install-peers installs them), and prints medians, the ratio
// service / fastest peer doing the same job, peak memory and the 4 × (input + output) bound. Then the
// small-file HTTP load against the service and a bare Express app. A table on the terminal, and
// bench/out/results.json with the machine and every peer's version.
//
// Environment: BENCH_ROWS (100000), BENCH_RUNS (3 rounds with peers), BENCH_TIME_RUNS (5: rounds in all, those
// past BENCH_RUNS running the service alone, in-process and through each door), BENCH_ONLY (substrings of task
// names, comma-separated; `load` for the small-file load alone), BENCH_HUGE=1 (the 1,000,000-row tasks), BENCH_LOAD_S (10; 0 skips the load),
// BENCH_LOAD_CONNECTIONS (20), BENCH_PEER_TIMEOUT_S (300), BENCH_HTTP_CLIENT (curl; `node` for node:http),
// BENCH_MARKS=1 (every HTTP run's raw phase marks), BENCH_HOST_SPEED_S (10: how long the machine's own speed is
// sampled before and after the tasks, bench/host-speed.ts; 0 skips it). To keep the default run shorter (about
// 43-47 minutes on 2 cores), a peer out of the race after the first round (not the same job, or over 1.5 × the fastest same-job
// peer) and slower than 2 s runs only once: more runs would not change the comparison.
// MAX_CELLS and PDF_MAX_ROWS apply to every service run as they do to the server.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig, toolLimitsOf } from '../tools/core/config.ts';
import { smallFileLoad, type LoadResult } from './http-load.ts';
import { hostSpeed, hostSpeedText, type HostSpeed } from './host-speed.ts';
import { writeInputs, type Inputs } from './inputs.ts';
import { dirOutput, envInt, freshDir, HAS_GNU_TIME, MB, median, timeCommand } from './measure.ts';
import { LIBREOFFICE_PROFILE, missing, peerVersions, q, type Peer } from './peers.ts';
import { compare, DOORS, emptyHttp, phaseTable, summarizeHttp, summarizePeer, table, type PeerResult, type ServiceResult, type TaskResult } from './report.ts';
import { httpBody, PHASES, readInputs, registered, runService, runServiceChild, runServiceHttp, startService, type HttpService, type ServiceSpec } from './service.ts';
import { hugeTasks, tasks, type Task } from './tasks.ts';

const ROWS = envInt('BENCH_ROWS', 100_000);
const RUNS = Math.max(1, envInt('BENCH_RUNS', 3));
// HTTP ÷ in-process is a median over paired rounds: over three, a slow moment of the host in two of one task's
// rounds is a miss that is not the code's (README, "Time"). Rounds of the service alone cost little beside
// rounds with peers.
const TIME_RUNS = Math.max(RUNS, envInt('BENCH_TIME_RUNS', 5));
const ONLY = process.env.BENCH_ONLY ?? '';
const only = (name: string) => ONLY.split(',').some((o) => name.includes(o.trim()));
const HUGE = process.env.BENCH_HUGE === '1';
const LOAD_S = envInt('BENCH_LOAD_S', 10);
const LOAD_CONNECTIONS = envInt('BENCH_LOAD_CONNECTIONS', 20);
const HOST_SPEED_S = envInt('BENCH_HOST_SPEED_S', 10);
const PEER_TIMEOUT_MS = envInt('BENCH_PEER_TIMEOUT_S', 300) * 1000;
const CHEAP_MS = 2_000;
const PARTS = 5;
const PDF_ROWS = 10_000;

const OUT = fileURLToPath(new URL('./out/', import.meta.url));
const WORK = join(OUT, 'work');
const config = parseConfig(process.env);
const limits = toolLimitsOf(config);
const started = performance.now();

const slug = (s: string) => s.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').toLowerCase();
const fmt = (x: number) => `${Math.round(x)} ms`;
const log = (s: string) => console.log(s);
/** The tools each job process has run (by pid, as the phase probe tells): a process's first run of a tool loads its code. */
const toolsRun = new Map<number, Set<string>>();
/** Whether this run was its process's first of the tool; notes that the process has run it. */
function firstUse(pid: number | null, tool: string): boolean {
  if (pid === null) return false;
  const tools = toolsRun.get(pid) ?? new Set<string>();
  toolsRun.set(pid, tools);
  if (tools.has(tool)) return false;
  tools.add(tool);
  return true;
}

async function pages(path: string): Promise<number | null> {
  const r = await timeCommand(`pdfinfo ${q(path)}`, { timeoutMs: 60_000, rssFile: join(WORK, 'pdfinfo.rss') });
  const m = /^Pages:\s+(\d+)/m.exec(r.stdout);
  return m ? Number(m[1]) : null;
}

/** One peer run on its own empty output folder. */
async function peerRun(task: Task, peer: Peer, inputs: Inputs, dir: string) {
  const io = { inputs: (peer.inputs ?? task.inputs).map(inputs.path), out: freshDir(dir) };
  const r = await timeCommand(peer.command(io), { env: peer.env, timeoutMs: PEER_TIMEOUT_MS, cwd: dir, rssFile: join(WORK, `${slug(peer.name)}.rss`) });
  const out = dirOutput(dir);
  // A command that exits 0 but writes nothing did not do the job.
  if (r.ok && out.bytes === 0) return { ...r, ok: false, error: 'no output', out };
  return { ...r, out };
}

/**
 * One untimed run over HTTP of each tool the tasks use (on its first task's inputs), so that every task is
 * measured on a server in use: a job process's first use of a tool loads what only that tool needs (pdfmake
 * and its fonts, about 17 MB and 170 ms, on the first PDF), a cost of the process, not of each run, which
 * the fresh-process column shows. Logged, with what each first run grew the job process by.
 */
async function warmTools(tasks: Task[], inputs: Inputs, http: HttpService): Promise<void> {
  const tools = new Map<string, Task>();
  for (const t of tasks) if (!t.huge && registered(t.tool) && !tools.has(t.tool)) tools.set(t.tool, t);
  if (tools.size === 0) return;
  log(`\nFirst use of each tool by the tasks' server (untimed): ${tools.size} tool(s)`);
  for (const [tool, task] of tools) {
    const spec: ServiceSpec = { tool, options: task.options, limits };
    const body = httpBody('multipart', spec, readInputs(task.inputs.map(inputs.path)), task.field, join(WORK, 'warm'), task.fields);
    const r = await runServiceHttp(http, spec, body);
    firstUse(r.jobPid, tool);
    log(`  ${tool.padEnd(18)} ${fmt(r.ms)}${r.jobGrowthMb != null ? `, job process +${Math.round(r.jobGrowthMb)} MB` : ''}${r.ok ? '' : ` (${r.code})`}`);
  }
}

async function runTask(task: Task, inputs: Inputs, http: HttpService): Promise<TaskResult> {
  const inputList = task.inputs.map((name) => ({ name, bytes: inputs.size[name] }));
  const base: TaskResult = { task: task.name, tool: task.tool, rows: task.rows, inputs: inputList, status: 'skipped', peers: [], fastestPeer: null, ratio: null, ratioHttp: null, ratioPaired: null, ratioHttpPaired: null, httpOverIn: null, boundMb: null };
  if (!registered(task.tool)) {
    log(`\n${task.name}: skipped, ${task.tool} is not registered yet`);
    return { ...base, note: `${task.tool} not registered` };
  }
  log(`\n${task.name} (${task.rows} rows, ${inputList.map((i) => `${i.name} ${(i.bytes / MB).toFixed(1)} MB`).join(', ')})`);
  const spec: ServiceSpec = { tool: task.tool, options: task.options, limits };
  const paths = task.inputs.map(inputs.path);
  const files = readInputs(paths);
  const inFiles = files.map((f, i) => ({ name: task.inputs[i], bytes: f.bytes, ...(task.fields?.[i] ? { field: task.fields[i] } : {}) }));
  const inBytes = files.reduce((n, f) => n + f.bytes.length, 0);
  const dir = join(WORK, slug(task.name));

  const svc: ServiceResult = {
    inProcess: { runsMs: [], medianMs: null, heapGrowthMb: null },
    child: { runsMs: [], medianMs: null, wallMedianMs: null, peakRssMb: null, growthMb: null },
    http: { multipart: emptyHttp(), json: emptyHttp() },
    outBytes: 0,
    outFiles: 0,
  };
  const wall: number[] = [];
  const peerState = task.peers.map((peer) => {
    const lacks = missing(peer);
    if (lacks.length) log(`  ${peer.name}: not installed (${lacks.join(', ')})`);
    return { peer, lacks, runsMs: [] as number[], rss: [] as number[], done: lacks.length > 0, error: undefined as string | undefined, outBytes: 0, outFiles: 0, lastDir: '' };
  });

  const inProcessStep = async () => {
    if (task.huge || svc.inProcess.error) return;
    globalThis.gc?.();
    const heap = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    const before = heap();
    const r = await runService(spec, inFiles);
    svc.inProcess.heapGrowthMb = Math.max(svc.inProcess.heapGrowthMb ?? 0, (heap() - before) / MB);
    if (!r.ok) return void (svc.inProcess.error = r.code);
    svc.inProcess.runsMs.push(r.ms);
    svc.outBytes = r.outBytes;
    svc.outFiles = r.outFiles;
    if (task.pdf && r.result && svc.pages === undefined) {
      const pdf = join(freshDir(join(dir, 'service')), r.result.files[0].name);
      writeFileSync(pdf, r.result.files[0].bytes);
      svc.pages = await pages(pdf);
    }
    log(`  service in-process  ${fmt(r.ms)}  → ${r.outFiles} file(s), ${(r.outBytes / MB).toFixed(1)} MB; heap + buffers after the run +${Math.round(svc.inProcess.heapGrowthMb)} MB`);
  };
  const childStep = async () => {
    if (svc.child.error) return;
    const r = await runServiceChild(spec, paths, PEER_TIMEOUT_MS, task.fields);
    if (!r.ok) return void (svc.child.error = r.code);
    svc.child.runsMs.push(r.ms);
    wall.push(r.wallMs);
    svc.child.peakRssMb = Math.max(svc.child.peakRssMb ?? 0, r.maxRssMb);
    svc.child.growthMb = Math.max(svc.child.growthMb ?? 0, r.maxRssMb - r.baseRssMb);
    if (task.huge) {
      svc.outBytes = r.outBytes;
      svc.outFiles = r.outFiles;
    }
    log(`  service fresh proc  ${fmt(r.ms)}  (process ${fmt(r.wallMs)}), peak RSS ${Math.round(r.maxRssMb)} MB (+${Math.round(r.maxRssMb - r.baseRssMb)} MB over the loaded runtime)`);
  };
  const doorSteps = DOORS.map((door) => {
    const body = httpBody(door, spec, files, task.field, dir, task.fields);
    return async () => {
      const h = svc.http[door];
      if (h.error) return;
      // The in-process run's result is garbage of this process, which reads the response: collected first.
      globalThis.gc?.();
      const r = await runServiceHttp(http, spec, body);
      if (!r.ok) return void (h.error = r.code);
      h.runsMs.push(r.ms);
      if (r.phases) {
        h.phases.push(r.phases);
        h.aroundMs.push(r.ms - r.phases.run);
      }
      const max = (a: number | null, b: number | null) => (b === null ? a : Math.max(a ?? 0, b));
      h.serverPeakMb = max(h.serverPeakMb, r.serverPeakMb);
      // A process that replaced another (after its collections, or a quiet spell) loads the tool's code on its
      // first run of it, as a fresh process does: that run's growth is reported apart.
      const first = firstUse(r.jobPid, task.tool);
      const grew = r.serverGrowthMb === null ? null : r.serverGrowthMb + (r.jobGrowthMb ?? 0);
      if (first) h.firstUseGrowthMb = max(h.firstUseGrowthMb, grew);
      else {
        h.serverGrowthMb = max(h.serverGrowthMb, r.serverGrowthMb);
        h.jobGrowthMb = max(h.jobGrowthMb, r.jobGrowthMb);
        // A run's own server and job figures together: the largest of each may come from different runs.
        h.runGrowthMb = max(h.runGrowthMb, grew);
      }
      const phases = r.phases ? ` (${PHASES.map((p) => `${p} ${Math.round(r.phases![p])}`).join(', ')})` : '';
      const others = r.otherJobsGrowthMb ? ` (other job processes +${Math.round(r.otherJobsGrowthMb)} MB)` : '';
      const growth = r.serverGrowthMb !== null ? `, growth server +${Math.round(r.serverGrowthMb)} MB, job +${Math.round(r.jobGrowthMb ?? 0)} MB${others}` : '';
      const pid = r.jobPid === null ? '' : `, job process ${r.jobPid}${first ? `'s first ${task.tool} run` : ''}`;
      log(`  service HTTP ${door.padEnd(9)} ${fmt(r.ms)}  → ${(r.outBytes / MB).toFixed(1)} MB${growth}${pid}${phases}`);
    };
  });
  // A round's in-process run and its HTTP runs go back to back, the first peer right after them: they are
  // compared round by round (report.ts, paired figures).
  const serviceSteps = [
    async () => {
      await inProcessStep();
      for (const step of doorSteps) await step();
    },
    childStep,
  ];
  const peerSteps = peerState.map((st) => async () => {
    if (st.done) return;
    const pdir = join(dir, slug(st.peer.name));
    const r = await peerRun(task, st.peer, inputs, pdir);
    if (!r.ok) {
      st.error = r.error;
      st.done = true;
      log(`  ${st.peer.name}: failed (${r.error})`);
      return;
    }
    st.runsMs.push(r.ms);
    if (r.peakRssMb !== null) st.rss.push(r.peakRssMb);
    st.outBytes = r.out.bytes;
    st.outFiles = r.out.files;
    st.lastDir = pdir;
    log(`  ${st.peer.name.padEnd(18)}  ${fmt(r.ms)}${r.peakRssMb !== null ? `, peak RSS ${Math.round(r.peakRssMb)} MB` : ''}  → ${r.out.files} file(s), ${(r.out.bytes / MB).toFixed(1)} MB`);
  });

  // Alternate service and peer runs (A B A B …) round after round, so that machine noise hits both alike.
  const rounds = task.huge ? 1 : TIME_RUNS;
  for (let round = 0; round < rounds; round++) {
    if (round >= RUNS) {
      await serviceSteps[0]();
      continue;
    }
    const n = Math.max(serviceSteps.length, peerSteps.length);
    for (let i = 0; i < n; i++) {
      if (serviceSteps[i]) await serviceSteps[i]();
      if (peerSteps[i]) await peerSteps[i]();
    }
    if (round === 0) {
      const fastest = Math.min(...peerState.filter((st) => st.peer.same && st.runsMs.length).map((st) => st.runsMs[0]));
      for (const st of peerState) {
        const first = st.runsMs[0];
        if (first > CHEAP_MS && (!st.peer.same || first > 1.5 * fastest)) st.done = true;
      }
    }
  }

  svc.inProcess.medianMs = median(svc.inProcess.runsMs);
  svc.child.medianMs = median(svc.child.runsMs);
  svc.child.wallMedianMs = median(wall);
  for (const door of DOORS) summarizeHttp(svc.http[door]);
  const peerResults: PeerResult[] = [];
  for (const st of peerState) {
    const pdf = task.pdf && st.lastDir ? dirOutput(st.lastDir).paths.find((p) => p.endsWith('.pdf')) : undefined;
    peerResults.push(
      summarizePeer({
        name: st.peer.name,
        same: st.peer.same,
        note: st.peer.note,
        status: st.lacks.length ? 'missing' : st.runsMs.length ? 'ran' : 'failed',
        missing: st.lacks.length ? st.lacks : undefined,
        error: st.error,
        runsMs: st.runsMs,
        peakRssMb: st.rss.length ? Math.max(...st.rss) : null,
        outBytes: st.outBytes,
        outFiles: st.outFiles,
        pages: pdf ? await pages(pdf) : undefined,
      }),
    );
  }
  const outBytes = svc.outBytes;
  return {
    ...base,
    status: 'ran',
    service: svc,
    peers: peerResults,
    ...compare(svc, peerResults),
    boundMb: outBytes ? (4 * (inBytes + outBytes)) / MB : null,
  };
}

/** LibreOffice builds its profile on first start (seconds): done once here, untimed. */
async function warmLibreOffice(inputs: Inputs) {
  if (missing({ name: 'LibreOffice', same: true, needs: { bin: ['soffice'] }, command: () => '' }).length) return;
  const dir = freshDir(join(WORK, 'libreoffice-warmup'));
  await timeCommand(`soffice --headless --norestore --nolockcheck -env:UserInstallation=file://${LIBREOFFICE_PROFILE} --convert-to xlsx --outdir ${q(dir)} ${q(inputs.path('pequeno.csv'))}`, {
    timeoutMs: 180_000,
    rssFile: join(WORK, 'warmup.rss'),
  });
}

// ---- the run ----
mkdirSync(WORK, { recursive: true });
const selected = [...tasks(ROWS, PARTS, PDF_ROWS), ...(HUGE ? hugeTasks() : [])].filter((t) => only(t.name));
log(`Generating inputs (${ROWS} rows${HUGE ? ', and the 1,000,000-row files' : ''})…`);
const t0 = performance.now();
const inputs = writeInputs(join(OUT, 'inputs'), ROWS, { huge: HUGE, parts: PARTS, pdfRows: PDF_ROWS });
log(`  done in ${fmt(performance.now() - t0)}: ${Object.entries(inputs.size).map(([n, b]) => `${n} ${(b / MB).toFixed(1)} MB`).join(', ')}`);
if (!HAS_GNU_TIME) log('  /usr/bin/time is missing (Debian package `time`): peers\' peak memory will not be measured');
await warmLibreOffice(inputs);

// The server takes any input this run sends; everything else (job memory, time, cells) keeps its defaults.
const largest = Math.max(...selected.map((t) => t.inputs.reduce((n, name) => n + inputs.size[name], 0)), 0);
const maxInputMb = Math.max(config.MAX_INPUT_MB, Math.ceil((largest * 1.2) / MB));
const serverEnv = { MAX_INPUT_MB: String(maxInputMb), MAX_RESULT_MB: '2048', MAX_FILE_PARTS: String(Math.max(20, PARTS)) };
// The tasks' server has the phase probe; the small-file load gets a server without it (no marks taken).
const http = await startService(serverEnv, undefined, { phases: true });
const results: TaskResult[] = [];
let load: LoadResult | { skipped: string } | null = null;
const host: { before?: HostSpeed | null; after?: HostSpeed | null } = {};
try {
  await warmTools(selected, inputs, http);
  if (HOST_SPEED_S > 0) log(`\nThis machine's speed before the tasks: ${hostSpeedText((host.before = hostSpeed(HOST_SPEED_S)))}`);
  for (const task of selected) results.push(await runTask(task, inputs, http));
  if (HOST_SPEED_S > 0) log(`\nThis machine's speed after the tasks: ${hostSpeedText((host.after = hostSpeed(HOST_SPEED_S)))}`);
  if (LOAD_S > 0 && ONLY.split(',').some((o) => 'small-file load'.includes(o.trim()))) {
    const tool = registered('csv-to-excel') ? 'csv-to-excel' : 'split-rows';
    log(`\nSmall-file HTTP load: ${tool}, ${(inputs.size['pequeno.csv'] / 1024).toFixed(1)} KB CSV, ${LOAD_CONNECTIONS} connections, ${LOAD_S} s, service, its front door and bare Express in turn`);
    await http.close();
    // This process holds the tasks' garbage (their inputs, results, in-process runs): collected now rather
    // than during a measured round. (The load's first round of three full runs gave whole runs 5.7-7.3 %
    // against 10-12 % in the next two, a cause not found: the load run alone shows no such first round.)
    globalThis.gc?.();
    const plain = await startService(serverEnv);
    try {
      load = await smallFileLoad(plain, { tool, csvPath: inputs.path('pequeno.csv'), inputBytes: inputs.size['pequeno.csv'], workDir: WORK, connections: LOAD_CONNECTIONS, seconds: LOAD_S, jobs: config.MAX_JOBS });
    } finally {
      await plain.close();
    }
  }
} finally {
  await http.close();
}

const machine = { cpu: cpus()[0]?.model ?? null, cores: availableParallelism(), memGb: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform} ${process.arch}` };
const versions = peerVersions();
const totalS = Math.round((performance.now() - started) / 1000);
log('\n' + table(results, RUNS));
log('\nratio = service ÷ fastest peer doing the same job (in-process, and over HTTP: the slower of multipart and JSON), run by run within each round, median over rounds; peers are timed as whole processes, start-up included. Each round runs the service in-process, then over HTTP through each door, then its first peer, back to back' + (TIME_RUNS > RUNS ? `; the ${TIME_RUNS - RUNS} round(s) after the first ${RUNS} run the service alone (in-process, then each door): ratios against peers read the rounds with peers, HTTP ÷ in reads every round` : '') + '; the columns of times are medians of all runs.');
log('HTTP ÷ in = the slower door over the in-process run of the same round (median over rounds); "ok" when the median round was within 1.3 × its in-process run + 50 ms (issue 19). HTTP growth = the server\'s peak RSS over its RSS before the request, + what the job process that ran the job gained from the job\'s arrival to its result, in the same request (the most of any run; a process starting or collecting beside it is logged apart). The server has run each tool once before the tasks; a run that was still its job process\'s first of the tool (a process that replaced another) loads the tool\'s code, as a fresh process does: it is left out of HTTP growth and shown beside it as "first use".');
log('RSS: service = peak of a fresh process per run (Node runtime included) / fastest peer\'s peak (GNU time); growth = service peak minus its loaded runtime, compared with 4 × (input + output).');
log('\nWhere the time goes over HTTP (medians, ms): receive = first byte sent to last body byte read; decode = to the job being handed off (JSON: parse and base64);');
log('hand-off = to the job process having it; run = in the job process; hand-back = to this process having the result; write = to the client\'s last byte.');
log('around the run = each request\'s time less its run (median); "ok" when within 0.3 × in-process + 50 ms, the part of issue 19\'s bound left to the path when the run takes as long in the job process as in-process.\n');
log(phaseTable(results));
if (load && 'service' in load) {
  const l = load;
  const figures = (f: LoadResult['service'], connections: number) =>
    `${connections} connections: ${(f.ok / l.seconds).toFixed(0)} runs/s (statuses ${JSON.stringify(f.statuses)}, errors ${f.errors}, p50 ${f.latencyP50Ms} ms, p99 ${f.latencyP99Ms} ms)`;
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  const spread = (xs: number[]) => `rounds ${xs.map(pct).join(', ')}`;
  log(`\nSmall-file load (${l.tool}, ${(l.inputBytes / 1024).toFixed(1)} KB CSV, ${l.seconds} s each in ${l.rounds} rounds, each round measuring every server in turn, autocannon):`);
  log(`  service, ${figures(l.service, l.connections)} → ${pct(l.ratio)} of bare Express at ${l.connections} (median; ${spread(l.perRound.ratio)})`);
  if (l.serviceAtJobs.connections !== l.connections) log(`  service, ${figures(l.serviceAtJobs, l.serviceAtJobs.connections)} → ${pct(l.ratioAtJobs)} of bare Express at ${l.serviceAtJobs.connections} (median; ${spread(l.perRound.ratioAtJobs)})`);
  log(`  front door alone (the worker answers a result made beforehand), ${figures(l.frontDoor, l.frontDoor.connections)} → ${pct(l.ratioFrontDoor)} of bare Express at ${l.frontDoor.connections} (median; ${spread(l.perRound.ratioFrontDoor)})`);
  log(`  bare Express "hello world": ${l.connections} connections ${(l.express.ok / l.seconds).toFixed(0)} req/s${l.expressAtJobs.connections !== l.connections ? `, ${l.expressAtJobs.connections} connections ${(l.expressAtJobs.ok / l.seconds).toFixed(0)} req/s` : ''} (issue 19 targets at ${l.serviceAtJobs.connections} connections: whole runs ≥ 10 %, the front door ≥ 25 %)`);
}
for (const [when, h] of Object.entries(host)) log(`\nThis machine's speed ${when} the tasks: ${hostSpeedText(h)}`);
log(`\n${new Date().toISOString().slice(0, 10)} · ${machine.cpu} · ${machine.cores} cores · ${machine.memGb} GiB · Node ${machine.node} · ${ROWS} rows · ${RUNS} rounds with peers, ${TIME_RUNS} in all · ${totalS} s · results in bench/out/results.json`);

writeFileSync(
  join(OUT, 'results.json'),
  JSON.stringify({ date: new Date().toISOString(), machine, versions, settings: { rows: ROWS, runs: RUNS, timeRuns: TIME_RUNS, only: ONLY || null, huge: HUGE, limits, serverMaxInputMb: maxInputMb, gnuTime: HAS_GNU_TIME }, totalSeconds: totalS, hostSpeed: host, results, load }, null, 2) + '\n',
);
