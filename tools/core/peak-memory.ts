// A process's resident memory and its peak since start or since the peak was last reset (Linux's VmRSS and
// VmHWM): how a measured run's memory is read, the job process's own (phases.ts) and the bench's of the server
// and its job processes. Null, or false, where there is no /proc to read.
import { readFileSync, writeFileSync } from 'node:fs';

/** Current and peak resident memory of a process, in MB. */
export function procMemory(pid: number | 'self'): { rssMb: number; hwmMb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    const rssMb = kb('VmRSS') / 1024;
    const hwmMb = kb('VmHWM') / 1024;
    // A process that has exited and not yet been reaped has a status without memory lines.
    return Number.isNaN(rssMb) || Number.isNaN(hwmMb) ? null : { rssMb, hwmMb };
  } catch {
    return null;
  }
}

/** Resets a process's peak (VmHWM) to its current resident memory, so that the next peak read is from now on. */
export function resetPeak(pid: number | 'self'): boolean {
  try {
    // `5` in clear_refs resets the peak resident set size (Linux 4.0+): this process's own, or its children's.
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
