// The deployment files agree with the code and with each other, checked without a container engine: the
// Containerfile is linted statically, compose.yaml and the Kubernetes manifest are parsed (a YAML library), and
// every variable they set is one the config declares, with a value it accepts; ports, health checks, the
// proxy's trusted hop, Prometheus's targets and the resources sized for the job bounds all line up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { bodyLimitBytes, CONFIG_VARIABLES, footprintMb, jobDefaults, MB, parseConfig } from '../../tools/core/config.ts';
import { envOf, instructions, stagesOf } from './containerfile.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const DECLARED = new Set(Object.keys(CONFIG_VARIABLES));
/** Variables the image sets that are not the service's own: Node's mode, and tsx's cache (read-only /tmp). */
const RUNTIME_VARS = new Set(['NODE_ENV', 'TSX_DISABLE_CACHE']);

const containerfile = instructions();
const stages = stagesOf(containerfile);
const finalStage = stages.at(-1)!;
const imageEnv = envOf(finalStage);
const IMAGE_PORT = Number(imageEnv.PORT);

test('Containerfile: multi-stage on Node 22 LTS, production dependencies only, no package scripts', () => {
  const arg = containerfile.find((i) => i.op === 'ARG' && i.args.startsWith('NODE_IMAGE='));
  assert.ok(arg, 'the base image is one ARG');
  assert.match(arg.args, /^NODE_IMAGE=node:22(\.\d+)*-(bookworm|trixie)-slim$/, 'Node 22 LTS, a slim Debian base, never :latest');
  assert.ok(stages.length >= 2, 'multi-stage');
  for (const s of stages) assert.match(s[0].args, /^\$\{NODE_IMAGE\}( AS \w+)?$/i, `stage at line ${s[0].line} builds on the same base`);
  const installs = containerfile.filter((i) => i.op === 'RUN' && /\bnpm (ci|install|i)\b/.test(i.args));
  assert.equal(installs.length, 1, 'dependencies are installed once');
  assert.match(installs[0].args, /\bnpm ci\b/, 'from the lock file');
  assert.match(installs[0].args, /--omit=dev/);
  assert.match(installs[0].args, /--ignore-scripts/);
  assert.ok(!finalStage.includes(installs[0]), 'in a build stage, not the final one');
  const fromDeps = finalStage.filter((i) => i.op === 'COPY' && /--from=/.test(i.args));
  assert.deepEqual(fromDeps.map((i) => i.args.replace(/--from=\S+\s+/, '')), ['/app/node_modules ./node_modules'], 'only node_modules comes from the build stage');
  assert.ok(!containerfile.some((i) => i.op === 'ADD'), 'COPY, never ADD');
});

test('Containerfile: non-root, production mode, read-only tree but DATA_DIR, health check, stop signal, cgroup defaults', () => {
  assert.equal(imageEnv.NODE_ENV, 'production');
  for (const name of Object.keys(imageEnv)) assert.ok(DECLARED.has(name) || RUNTIME_VARS.has(name), `ENV ${name} is declared by the config`);
  assert.equal(imageEnv.MAX_JOBS, undefined, 'MAX_JOBS is derived from the cgroup');
  assert.equal(imageEnv.JOB_MEMORY_MB, undefined, 'JOB_MEMORY_MB is derived from the cgroup');
  parseConfig(imageEnv, { cpus: 2, memoryBytes: null });
  assert.equal(imageEnv.HOST, '0.0.0.0');

  const user = finalStage.filter((i) => i.op === 'USER').at(-1);
  assert.ok(user && !/^(root|0)(:|$)/.test(user.args), 'runs as a non-root user');
  const cmd = finalStage.find((i) => i.op === 'CMD')!;
  assert.ok(finalStage.indexOf(user) < finalStage.indexOf(cmd));
  const argv = JSON.parse(cmd.args) as string[];
  assert.equal(argv[0], 'node', 'exec form: node is PID 1 and gets SIGTERM itself');
  assert.ok(existsSync(join(ROOT, argv.at(-1)!)), `${argv.at(-1)} exists`);
  assert.equal(finalStage.find((i) => i.op === 'STOPSIGNAL')?.args, 'SIGTERM');
  const health = finalStage.find((i) => i.op === 'HEALTHCHECK')!;
  assert.match(health.args, /CMD \[/, 'exec form');
  assert.match(health.args, /\/health/);
  assert.match(health.args, /process\.env\.PORT/, 'follows PORT');
  assert.equal(Number(finalStage.find((i) => i.op === 'EXPOSE')?.args), IMAGE_PORT);

  // Only DATA_DIR belongs to the service's user; the code is root's.
  assert.equal(finalStage.find((i) => i.op === 'VOLUME')?.args, imageEnv.DATA_DIR);
  const owned = finalStage.filter((i) => i.op === 'RUN' && /chown/.test(i.args));
  assert.equal(owned.length, 1);
  assert.match(owned[0].args, new RegExp(`chown ${user.args}:\\S+ ${imageEnv.DATA_DIR}(\\s|$)`));
  for (const copy of finalStage.filter((i) => i.op === 'COPY')) assert.doesNotMatch(copy.args, /--chown/, 'the code is not the service user\'s');
  for (const copy of containerfile.filter((i) => i.op === 'COPY' && !/--from=/.test(i.args))) {
    for (const src of copy.args.split(/\s+/).slice(0, -1)) assert.ok(existsSync(join(ROOT, src)), `COPY ${src} exists`);
  }
});

/** Compose's `${VAR:-default}` and `${VAR}` with nothing set. */
const interpolate = (v: unknown) => String(v).replace(/\$\{\w+(?::?-([^}]*))?\}/g, (_, d: string | undefined) => d ?? '');
/** MB in "2g", "512m", "2560Mi", "3Gi". */
function megabytes(q: string | number): number {
  const m = /^(\d+(?:\.\d+)?)\s*(k|m|g|Ki|Mi|Gi)?b?$/i.exec(String(q));
  assert.ok(m, `a memory quantity: ${q}`);
  const unit = (m[2] ?? '').toLowerCase();
  const bytes = Number(m[1]) * ({ k: 1024, ki: 1024, m: MB, mi: MB, g: 1024 * MB, gi: 1024 * MB } as Record<string, number>)[unit] || Number(m[1]);
  return bytes / MB;
}
const cores = (q: string | number) => (String(q).endsWith('m') ? Number(String(q).slice(0, -1)) / 1000 : Number(q));
const BODY_MB = bodyLimitBytes(parseConfig({}, { cpus: 1, memoryBytes: null })) / MB;

/** The config a replica gets from these variables, over the image's; throws like start-up would. */
const replicaConfig = (env: Record<string, string>, machine = { cpus: 2, memoryBytes: null as number | null }) => parseConfig({ ...imageEnv, ...env }, machine);

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  ports?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  networks?: Record<string, { ipv4_address?: string } | null>;
  volumes?: string[];
  command?: string[];
  cpus?: number;
  mem_limit?: string;
  read_only?: boolean;
  stop_grace_period?: string;
}

test('compose.yaml: two replicas behind the proxy, which alone publishes a port and is the one trusted hop', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, ComposeService> };
  const services = compose.services;
  const apps = Object.entries(services).filter(([, s]) => s.build?.dockerfile === 'Containerfile');
  assert.equal(apps.length, 2, 'two replicas of the image');
  const published = Object.entries(services).filter(([, s]) => s.ports?.length);
  assert.deepEqual(published.map(([n]) => n), ['proxy'], 'only the proxy publishes a port');
  const proxy = services.proxy;
  assert.match(proxy.image ?? '', /^caddy:2\.\d+/);
  const proxyPort = Number(/:(\d+)$/.exec(proxy.ports![0])![1]);
  const proxyAddress = Object.values(proxy.networks ?? {}).find((n) => n?.ipv4_address)?.ipv4_address;
  assert.ok(proxyAddress, 'the proxy has a fixed address the replicas can trust');

  const caddyMount = proxy.volumes?.find((v) => v.endsWith(':/etc/caddy/Caddyfile:ro'));
  assert.ok(caddyMount);
  const caddyfile = read(caddyMount.split(':')[0]).replace(/^\s*#.*$/gm, '');
  assert.match(caddyfile, new RegExp(`^:${proxyPort} \\{`, 'm'), 'Caddy listens on the port the proxy publishes');
  const upstreams = /reverse_proxy ([^{\n]+)\{/.exec(caddyfile)![1].trim().split(/\s+/);
  assert.doesNotMatch(caddyfile, /trusted_proxies/, 'Caddy trusts no X-Forwarded-For from clients: it sets the one it sends');
  assert.match(caddyfile, /health_uri \/health\b/);
  assert.match(caddyfile, /@metrics path \/metrics\s+respond @metrics 404/, '/metrics is not public');

  const prometheus = services.prometheus;
  const promMount = prometheus.volumes?.find((v) => v.endsWith(':/etc/prometheus/prometheus.yml:ro'));
  assert.ok(promMount);
  const scrape = (parse(read(promMount.split(':')[0])) as { scrape_configs: Array<{ metrics_path: string; static_configs: Array<{ targets: string[] }> }> }).scrape_configs[0];
  assert.equal(scrape.metrics_path, '/metrics');

  const redisName = Object.entries(services).find(([, s]) => /^redis:\d/.test(s.image ?? ''))?.[0];
  assert.ok(redisName, 'a Redis service');
  const redis = services[redisName];
  assert.ok(redis.volumes?.some((v) => v.endsWith(':/data') && !v.startsWith('.')), 'Redis keeps its data in a named volume');
  assert.ok(redis.command?.includes('--appendonly') && redis.command[redis.command.indexOf('--appendonly') + 1] === 'yes', 'keys survive a restart');

  for (const [name, app] of apps) {
    const env = Object.fromEntries(Object.entries(app.environment ?? {}).map(([k, v]) => [k, interpolate(v)]));
    for (const k of Object.keys(env)) assert.ok(DECLARED.has(k), `${name}: ${k} is declared by the config`);
    const mem = megabytes(app.mem_limit!) * MB;
    const config = replicaConfig(env, { cpus: cores(app.cpus!), memoryBytes: mem });
    assert.equal(config.TRUST_PROXY, proxyAddress, `${name} trusts exactly the proxy's hop`);
    const port = config.PORT;
    assert.ok(upstreams.includes(`${name}:${port}`), `Caddy sends calls to ${name}:${port}`);
    assert.ok(scrape.static_configs[0].targets.includes(`${name}:${port}`), `Prometheus scrapes ${name}`);
    const url = new URL(config.REDIS_URL);
    assert.equal(url.hostname, redisName);
    assert.equal(Number(url.port || 6379), 6379);
    assert.equal(app.depends_on?.[redisName]?.condition, 'service_healthy');
    assert.equal(proxy.depends_on?.[name]?.condition, 'service_healthy');
    const check = app.healthcheck!.test.join(' ');
    assert.match(check, new RegExp(`127\\.0\\.0\\.1:${port}/health`), 'the compose health check (OCI images drop HEALTHCHECK)');
    assert.equal(app.read_only, true, 'read-only root filesystem');
    assert.ok(Number(/^(\d+)s$/.exec(app.stop_grace_period!)![1]) > config.SHUTDOWN_TIMEOUT_S, 'runs in flight finish before the container is killed');
    assert.ok(footprintMb(config.MAX_JOBS, config.JOB_MEMORY_MB, BODY_MB) <= mem / MB, 'the derived job bounds fit the memory limit');
    assert.ok(config.JOB_MEMORY_MB >= 512);
  }
  assert.equal(upstreams.length, apps.length);
  assert.equal(scrape.static_configs[0].targets.length, apps.length);
});

interface K8sObject {
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec: any;
}

test('kubernetes.yaml: probes on /health, resources sized for the job bounds, HPA on CPU, Service and Ingress wired', () => {
  const docs = parseAllDocuments(read('deploy/kubernetes.yaml')).map((d) => {
    assert.deepEqual(d.errors, []);
    return d.toJS() as K8sObject;
  });
  const byKind = (kind: string) => docs.find((d) => d.kind === kind)!;
  const deployment = byKind('Deployment');
  const pod = deployment.spec.template;
  const [container] = pod.spec.containers;
  assert.deepEqual(deployment.spec.selector.matchLabels, pod.metadata.labels);

  const env: Record<string, string> = {};
  for (const e of container.env as Array<{ name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }>) {
    assert.ok(DECLARED.has(e.name), `${e.name} is declared by the config`);
    if (e.value !== undefined) env[e.name] = e.value;
    else assert.ok(e.valueFrom?.secretKeyRef, `${e.name} comes from a Secret`);
  }
  assert.ok(container.env.some((e: { name: string; valueFrom?: unknown }) => e.name === 'REDIS_URL' && e.valueFrom), 'Redis is an external dependency, its URL a secret');
  const limits = container.resources.limits;
  const config = replicaConfig({ ...env, REDIS_URL: 'redis://redis.example:6379' }, { cpus: cores(limits.cpu), memoryBytes: megabytes(limits.memory) * MB });

  const port = container.ports.find((p: { name: string }) => p.name === 'http');
  assert.equal(port.containerPort, config.PORT);
  for (const probe of [container.readinessProbe, container.livenessProbe]) {
    assert.equal(probe.httpGet.path, '/health');
    assert.equal(probe.httpGet.port, 'http');
  }
  assert.ok(container.livenessProbe.failureThreshold * container.livenessProbe.periodSeconds > container.readinessProbe.failureThreshold * container.readinessProbe.periodSeconds, 'a busy pod leaves the rotation long before it is restarted');

  assert.ok(footprintMb(config.MAX_JOBS, config.JOB_MEMORY_MB, BODY_MB) <= megabytes(limits.memory), 'MAX_JOBS runs of JOB_MEMORY_MB fit the memory limit');
  assert.ok(cores(limits.cpu) >= config.MAX_JOBS, 'a core per job');
  assert.deepEqual(container.resources.requests, limits, 'requests = limits: the pod is never squeezed below its job bounds');
  assert.deepEqual(jobDefaults({ cpus: cores(limits.cpu), memoryBytes: megabytes(limits.memory) * MB }, BODY_MB, {}), { MAX_JOBS: config.MAX_JOBS, JOB_MEMORY_MB: config.JOB_MEMORY_MB }, 'the service would derive the same bounds from the limits');

  const preStop = Number(container.lifecycle.preStop.exec.command[1]);
  assert.ok(pod.spec.terminationGracePeriodSeconds > config.SHUTDOWN_TIMEOUT_S + preStop, 'runs in flight finish before the pod is killed');
  assert.equal(container.securityContext.readOnlyRootFilesystem, true);
  assert.equal(pod.spec.securityContext.runAsNonRoot, true);
  assert.deepEqual(container.volumeMounts.map((m: { mountPath: string }) => m.mountPath), [imageEnv.DATA_DIR], 'only DATA_DIR is writable');

  const service = byKind('Service');
  assert.deepEqual(service.spec.selector, pod.metadata.labels);
  assert.equal(service.spec.ports[0].targetPort, 'http');
  const hpa = byKind('HorizontalPodAutoscaler');
  assert.deepEqual(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
  assert.equal(hpa.spec.metrics[0].resource.name, 'cpu');
  assert.ok(hpa.spec.minReplicas >= 2);
  assert.deepEqual(byKind('PodDisruptionBudget').spec.selector.matchLabels, pod.metadata.labels);

  const ingress = byKind('Ingress');
  const paths = ingress.spec.rules[0].http.paths as Array<{ path: string; backend: { service: { name: string; port: { name: string } } } }>;
  for (const p of paths) assert.deepEqual(p.backend.service, { name: service.metadata.name, port: { name: service.spec.ports[0].name } });
  assert.deepEqual(new Set(paths.map((p) => p.path)), new Set(['/mcp', '/api', '/admin', '/llms.txt', '/health']), '/metrics is not routed');
  const bodyMb = megabytes(ingress.metadata.annotations!['nginx.ingress.kubernetes.io/proxy-body-size']);
  assert.ok(bodyMb >= bodyLimitBytes(config) / MB, 'the ingress lets the largest accepted body through');
  assert.ok(Number(ingress.metadata.annotations!['nginx.ingress.kubernetes.io/proxy-read-timeout']) >= config.JOB_TIMEOUT_S, 'and waits for a run');
});
