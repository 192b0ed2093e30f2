// The processes a process has started (Linux): a server's job processes, for the tests that watch them and
// the bench that reads their memory; and the command line a process runs with. Read from every process's
// /proc/<pid>/stat (its parent is the field after the state), which needs nothing of the kernel's
// configuration that /proc/<pid>/task/<tid>/children does.
import { readdirSync, readFileSync } from 'node:fs';

export function childPids(parent: number): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'latin1');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) pids.push(Number(d));
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
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
