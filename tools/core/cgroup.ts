// The CPU and memory a container may use, from its cgroup (v2, or v1 where the host still mounts it), so that
// MAX_JOBS and JOB_MEMORY_MB fit the container rather than the host it runs on. Only the files are read; a
// missing or unreadable one means "no limit", never a failure.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CgroupLimits {
  /** CPUs the quota allows (quota / period, may be fractional), or null when unlimited. */
  cpus: number | null;
  /** Bytes of memory, or null when unlimited. */
  memoryBytes: number | null;
}

// cgroup v1 writes "unlimited" as the largest page-aligned 64-bit value (9223372036854771712); anything past
// 2^60 bytes is no real limit either.
const UNLIMITED_BYTES = 2 ** 60;

const read = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
};

interface Mount {
  /** Where the hierarchy is mounted (`/sys/fs/cgroup`, `/sys/fs/cgroup/memory`). */
  point: string;
  /** The cgroup that is the mount's root (`/` in a container with its own cgroup namespace). */
  root: string;
  /** v1 controllers in its super options, or ['*'] for the unified (v2) hierarchy. */
  controllers: string[];
}

function mountsOf(mountinfo: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of mountinfo.split('\n')) {
    // id parent major:minor root mount-point options [optional fields] - fstype source super-options
    const [left, right] = line.split(' - ');
    if (!right) continue;
    const f = left.split(' ');
    const [fstype, , superOptions = ''] = right.split(' ');
    const unescape = (s: string) => s.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    if (fstype === 'cgroup2') mounts.push({ point: unescape(f[4]), root: unescape(f[3]), controllers: ['*'] });
    else if (fstype === 'cgroup') mounts.push({ point: unescape(f[4]), root: unescape(f[3]), controllers: superOptions.split(',') });
  }
  return mounts;
}

/**
 * Folders from the process's own cgroup up to its mount point, for one controller (`'*'` = v2). The path
 * `/proc/self/cgroup` names is relative to the hierarchy's root; inside a container without a cgroup
 * namespace the mount's root is the container's cgroup and the named path is the host's, so the part the
 * mount already covers is cut (as the JDK and libuv do).
 */
function foldersFor(controller: string, selfCgroup: string, mounts: Mount[], fsRoot: string): string[] {
  for (const line of selfCgroup.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    const v2 = m[1] === '0' && m[2] === '';
    if (controller === '*' ? !v2 : v2 || !m[2].split(',').includes(controller)) continue;
    const mount = mounts.find((x) => (controller === '*' ? x.controllers[0] === '*' : x.controllers.includes(controller)));
    if (!mount) continue;
    let path = m[3];
    if (mount.root !== '/') path = path === mount.root || path.startsWith(`${mount.root}/`) ? path.slice(mount.root.length) : '';
    const parts = path.split('/').filter(Boolean);
    const folders: string[] = [];
    for (let i = parts.length; i >= 0; i--) folders.push(join(fsRoot, mount.point, ...parts.slice(0, i)));
    return folders;
  }
  return [];
}

/** The smallest limit any folder sets (a parent's limit binds its children too). */
function smallest(folders: string[], limitIn: (folder: string) => number | null): number | null {
  let least: number | null = null;
  for (const folder of folders) {
    const v = limitIn(folder);
    if (v !== null && (least === null || v < least)) least = v;
  }
  return least;
}

const positive = (s: string | null | undefined): number | null => {
  if (!s || !/^\d+$/.test(s)) return null;
  const n = Number(s);
  return n > 0 && n < UNLIMITED_BYTES ? n : null;
};

/** The limits of this process's cgroup; `fsRoot` stands for `/` (tests point it at fake files). */
export function readCgroupLimits(fsRoot = '/'): CgroupLimits {
  const selfCgroup = read(join(fsRoot, 'proc/self/cgroup'));
  const mountinfo = read(join(fsRoot, 'proc/self/mountinfo'));
  if (selfCgroup === null || mountinfo === null) return { cpus: null, memoryBytes: null };
  const mounts = mountsOf(mountinfo);

  const v2 = foldersFor('*', selfCgroup, mounts, fsRoot);
  const cpuV2 = smallest(v2, (d) => {
    const [quota, period] = (read(join(d, 'cpu.max')) ?? '').split(' ');
    const q = positive(quota);
    const p = positive(period);
    return q !== null && p !== null ? q / p : null;
  });
  const memV2 = smallest(v2, (d) => positive(read(join(d, 'memory.max'))));

  const cpuV1 = smallest(foldersFor('cpu', selfCgroup, mounts, fsRoot), (d) => {
    const q = positive(read(join(d, 'cpu.cfs_quota_us')));
    const p = positive(read(join(d, 'cpu.cfs_period_us')));
    return q !== null && p !== null ? q / p : null;
  });
  const memV1 = smallest(foldersFor('memory', selfCgroup, mounts, fsRoot), (d) => positive(read(join(d, 'memory.limit_in_bytes'))));

  return { cpus: cpuV2 ?? cpuV1, memoryBytes: memV2 ?? memV1 };
}
