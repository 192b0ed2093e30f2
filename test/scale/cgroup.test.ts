// MAX_JOBS and JOB_MEMORY_MB follow the container's cgroup when unset: the limits are read from fake
// /proc and /sys trees laid out as cgroup v2, v1 and hybrid hosts present them, then turned into defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readCgroupLimits } from '../../tools/core/cgroup.ts';
import { bodyLimitBytes, footprintMb as footprint, jobDefaults, MB, parseConfig, readMachine } from '../../tools/core/config.ts';

const GB = 1024 * MB;
const V1_UNLIMITED = '9223372036854771712';

/** A fake filesystem root holding `files` (paths relative to it); removed by the caller. */
function fakeRoot(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'cgroup-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), `${content}\n`);
  }
  return root;
}

const V2_MOUNT = '30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot';

function withRoot(files: Record<string, string>, fn: (root: string) => void) {
  const root = fakeRoot(files);
  try {
    fn(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test('cgroup v2 in a container (own namespace): cpu.max and memory.max at the mount root', () => {
  withRoot({ 'proc/self/cgroup': '0::/', 'proc/self/mountinfo': V2_MOUNT, 'sys/fs/cgroup/cpu.max': '150000 100000', 'sys/fs/cgroup/memory.max': String(2 * GB) }, (root) => {
    assert.deepEqual(readCgroupLimits(root), { cpus: 1.5, memoryBytes: 2 * GB });
  });
});

test('cgroup v2 on a host: the process cgroup is a sub-folder, and a parent limit binds it too', () => {
  withRoot(
    {
      'proc/self/cgroup': '0::/system.slice/app.service',
      'proc/self/mountinfo': V2_MOUNT,
      'sys/fs/cgroup/system.slice/cpu.max': '100000 100000',
      'sys/fs/cgroup/system.slice/memory.max': String(3 * GB),
      'sys/fs/cgroup/system.slice/app.service/cpu.max': 'max 100000',
      'sys/fs/cgroup/system.slice/app.service/memory.max': String(4 * GB),
    },
    (root) => assert.deepEqual(readCgroupLimits(root), { cpus: 1, memoryBytes: 3 * GB }),
  );
});

test('cgroup v2 with no limits ("max"), or no cgroup files at all: no limit', () => {
  withRoot({ 'proc/self/cgroup': '0::/', 'proc/self/mountinfo': V2_MOUNT, 'sys/fs/cgroup/cpu.max': 'max 100000', 'sys/fs/cgroup/memory.max': 'max' }, (root) => {
    assert.deepEqual(readCgroupLimits(root), { cpus: null, memoryBytes: null });
  });
  withRoot({ 'etc/hostname': 'x' }, (root) => assert.deepEqual(readCgroupLimits(root), { cpus: null, memoryBytes: null }));
  withRoot({ 'proc/self/cgroup': 'garbage', 'proc/self/mountinfo': 'garbage' }, (root) => assert.deepEqual(readCgroupLimits(root), { cpus: null, memoryBytes: null }));
});

test('cgroup v1 (Docker without a cgroup namespace): the host path is cut to the mount root', () => {
  const id = 'docker/4f1c0a';
  withRoot(
    {
      'proc/self/cgroup': [`12:memory:/${id}`, `4:cpu,cpuacct:/${id}`, `1:name=systemd:/${id}`, '0::/'].join('\n'),
      'proc/self/mountinfo': [
        `40 31 0:36 /${id} /sys/fs/cgroup/cpu,cpuacct ro,nosuid,nodev,noexec,relatime master:16 - cgroup cgroup rw,cpu,cpuacct`,
        `44 31 0:40 /${id} /sys/fs/cgroup/memory ro,nosuid,nodev,noexec,relatime master:20 - cgroup cgroup rw,memory`,
        '45 31 0:41 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw',
      ].join('\n'),
      'sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '250000',
      'sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000',
      'sys/fs/cgroup/memory/memory.limit_in_bytes': String(512 * MB),
    },
    (root) => assert.deepEqual(readCgroupLimits(root), { cpus: 2.5, memoryBytes: 512 * MB }),
  );
});

test('cgroup v1 unlimited (quota -1, the largest page-aligned value) is no limit', () => {
  withRoot(
    {
      'proc/self/cgroup': ['4:memory:/', '1:cpu:/'].join('\n'),
      'proc/self/mountinfo': ['32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu', '35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory'].join('\n'),
      'sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1',
      'sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000',
      'sys/fs/cgroup/memory/memory.limit_in_bytes': V1_UNLIMITED,
    },
    (root) => assert.deepEqual(readCgroupLimits(root), { cpus: null, memoryBytes: null }),
  );
});

test('machine: the CPU quota is rounded up and never exceeds the cores the process may use', () => {
  withRoot({ 'proc/self/cgroup': '0::/', 'proc/self/mountinfo': V2_MOUNT, 'sys/fs/cgroup/cpu.max': '50000 100000' }, (root) => {
    assert.deepEqual(readMachine(root), { cpus: 1, memoryBytes: null });
  });
  withRoot({ 'proc/self/cgroup': '0::/', 'proc/self/mountinfo': V2_MOUNT, 'sys/fs/cgroup/cpu.max': `${(availableParallelism() + 8) * 100000} 100000` }, (root) => {
    assert.equal(readMachine(root).cpus, availableParallelism());
  });
});

const body = bodyLimitBytes({ MAX_INPUT_MB: 25 }) / MB;
/** What the server and its runs may hold at once under the derived values (see jobDefaults). */
const footprintMb = (d: { MAX_JOBS: number; JOB_MEMORY_MB: number }) => footprint(d.MAX_JOBS, d.JOB_MEMORY_MB, body);

test('defaults: no memory limit keeps one job per core with the 1024 MB heap, as on a laptop', () => {
  assert.deepEqual(jobDefaults({ cpus: 8, memoryBytes: null }, body, {}), { MAX_JOBS: 8, JOB_MEMORY_MB: 1024 });
  const c = parseConfig({}, { cpus: 3, memoryBytes: null });
  assert.equal(c.MAX_JOBS, 3);
  assert.equal(c.JOB_MEMORY_MB, 1024);
});

test('defaults: a memory limit lowers the heap to 512 MB before it lowers the number of jobs, and everything fits', () => {
  const roomy = jobDefaults({ cpus: 2, memoryBytes: 8 * GB }, body, {});
  assert.deepEqual(roomy, { MAX_JOBS: 2, JOB_MEMORY_MB: 1024 });
  const two = jobDefaults({ cpus: 2, memoryBytes: 2 * GB }, body, {});
  assert.equal(two.MAX_JOBS, 2);
  assert.ok(two.JOB_MEMORY_MB >= 512 && two.JOB_MEMORY_MB < 1024, JSON.stringify(two));
  assert.ok(footprintMb(two) <= 2048, `${footprintMb(two)} MB in a 2 GB container`);
  const many = jobDefaults({ cpus: 16, memoryBytes: 4 * GB }, body, {});
  assert.ok(many.MAX_JOBS < 16 && many.JOB_MEMORY_MB >= 512, JSON.stringify(many));
  assert.ok(footprintMb(many) <= 4096);
  const small = jobDefaults({ cpus: 4, memoryBytes: 512 * MB }, body, {});
  assert.equal(small.MAX_JOBS, 1, 'a small container runs one job at a time');
  assert.ok(small.JOB_MEMORY_MB >= 64 && footprintMb(small) <= 512, JSON.stringify(small));
});

test('defaults: a variable that is set is kept, and the other one is derived around it', () => {
  const jobsSet = jobDefaults({ cpus: 4, memoryBytes: 2 * GB }, body, { MAX_JOBS: 3 });
  assert.equal(jobsSet.MAX_JOBS, 3);
  assert.ok(footprintMb(jobsSet) <= 2048, JSON.stringify(jobsSet));
  const heapSet = jobDefaults({ cpus: 4, memoryBytes: 2 * GB }, body, { JOB_MEMORY_MB: 256 });
  assert.deepEqual(heapSet, { MAX_JOBS: 4, JOB_MEMORY_MB: 256 });
  assert.deepEqual(jobDefaults({ cpus: 4, memoryBytes: 2 * GB }, body, { MAX_JOBS: 9, JOB_MEMORY_MB: 4096 }), { MAX_JOBS: 9, JOB_MEMORY_MB: 4096 }, 'explicit values win, even if they overcommit');
  const c = parseConfig({ MAX_JOBS: '1' }, { cpus: 2, memoryBytes: GB });
  assert.equal(c.MAX_JOBS, 1);
  assert.ok(c.JOB_MEMORY_MB > 512 && c.JOB_MEMORY_MB <= 1024);
});

test('parseConfig reads the fake cgroup through readMachine: 1.5 CPUs and 1 GB give one job of under 1 GB', () => {
  withRoot({ 'proc/self/cgroup': '0::/', 'proc/self/mountinfo': V2_MOUNT, 'sys/fs/cgroup/cpu.max': '150000 100000', 'sys/fs/cgroup/memory.max': String(GB) }, (root) => {
    const c = parseConfig({}, readMachine(root));
    assert.equal(c.MAX_JOBS, 1, "two jobs of 512 MB or more do not fit beside the server");
    assert.ok(c.JOB_MEMORY_MB >= 512 && c.JOB_MEMORY_MB < 1024, String(c.JOB_MEMORY_MB));
  });
});
