// The processes on this machine (Linux): a server's job processes, for the tests that watch them and the bench
// that reads their memory; every process's CPU time, for the bench's probes; and the command line a process runs
// with. Read from every process's /proc/<pid>/stat (its parent is the field after the state), which needs nothing
// of the kernel's configuration that /proc/<pid>/task/<tid>/children does.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessStat {
  pid: number;
  name: string;
  parent: number;
  /** User and system CPU time so far (clock ticks taken as 100 a second). */
  cpuMs: number;
}

/** Every process readable now; empty where there is no /proc. */
export function processStats(): ProcessStat[] {
  let dirs: string[];
  try {
    dirs = readdirSync('/proc');
  } catch {
    return [];
  }
  const stats: ProcessStat[] = [];
  for (const d of dirs) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'latin1');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      stats.push({ pid: Number(d), name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), parent: Number(f[1]), cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / 100 });
    } catch {
      /* gone meanwhile */
    }
  }
  return stats;
}

export function childPids(parent: number): number[] {
  return processStats()
    .filter((p) => p.parent === parent)
    .map((p) => p.pid);
}

/** The arguments process `pid` runs with now, its executable first (after an exec, the new ones). */
export function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

/**
 * Of a process's children, its job processes. Not every child is one: tsx starts esbuild's service as a child
 * of whatever runs through it, before any job process and while the first ones load.
 */
export function jobPids(parent: number): number[] {
  return childPids(parent).filter((pid) => {
    try {
      return commandLine(pid).some((arg) => arg.includes('job-process'));
    } catch {
      return false; // gone meanwhile
    }
  });
}
