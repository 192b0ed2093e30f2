// Job processes run below the server's CPU priority. On a busy machine a job process woken by its next job
// preempted the server in the middle of a request; and the server's own work (answering the next request, a
// health check, a refusal) should not wait behind a conversion.
import { readFileSync, writeFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Linux allows an unprivileged process one autogroup change per 100 ms, system-wide: later ones fail EAGAIN. */
const AUTOGROUP_RETRY_MS = 110;
const AUTOGROUP_TRIES = 5;
const LOWEST = 19;

/** The nice value of a process's autogroup (Linux: "/autogroup-42 nice 0"); null where there is none. */
export function autogroupNice(pid: number | 'self'): number | null {
  try {
    const m = /\bnice\s+(-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** A job process's place below this one, kept while it lives: see lowerPriority. */
export interface Placed {
  /** From the lowest group priority (a spare nobody waits for) to the one it was placed at. Idempotent. */
  needed(): void;
}

/**
 * Puts process `pid` `by` nice steps below this one, as far as this system lets it; `alive` tells whether it
 * is still the same process (a retry must not reach a pid reused by another).
 *
 * Linux with autogroup (the default of most distributions, for processes outside any cgroup of their own)
 * schedules each session as one group, and a job process, spawned detached, has a session of its own: its own
 * nice value then weighs only against itself, and its group's (`/proc/<pid>/autogroup`, 0 when made) is the
 * one that counts. Both are set, each below this process's own; neither failing is an error, since the
 * service runs as it did without them.
 *
 * A `spare` (a process loading to take the place of one that still serves) has its group at the lowest
 * priority until `needed()`: its half second of loading then takes only CPU that nothing else wants, where
 * it had slowed the run beside it by half (split-by-column, 12 MB over HTTP: 124 ms alone, 211 beside a
 * process loading one group below the server, 140 beside one at the lowest). A group's nice value may go back
 * up to any value from 0 without privilege; a process's own may not, so that one stays where it was placed.
 */
export function lowerPriority(pid: number, by: number, alive: () => boolean, spare = false): Placed {
  try {
    setPriority(pid, Math.min(LOWEST, getPriority() + by));
  } catch {
    /* not permitted here, or gone */
  }
  const own = autogroupNice('self');
  if (own === null) return { needed() {} };
  const placed = String(Math.min(LOWEST, own + by));
  let wanted = spare ? String(LOWEST) : placed;
  let retry: NodeJS.Timeout | undefined;
  const group = (tries: number) => {
    retry = undefined;
    if (!alive()) return;
    try {
      writeFileSync(`/proc/${pid}/autogroup`, wanted);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN' && tries > 1) {
        retry = setTimeout(group, AUTOGROUP_RETRY_MS, tries - 1);
        retry.unref();
      }
    }
  };
  group(AUTOGROUP_TRIES);
  return {
    needed() {
      if (wanted === placed) return;
      wanted = placed;
      // A write still being retried takes the new value; else a new one.
      if (retry === undefined) group(AUTOGROUP_TRIES);
    },
  };
}
