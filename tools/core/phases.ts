// Where an HTTP run's time goes: marks along its path (body read, files decoded, hand-off to the job process,
// run, hand-back, answer written), published once the answer is written. Marks are taken only while something
// subscribes to the channel (the bench's probe, bench/phase-probe.ts): a server nobody measures pays one
// `hasSubscribers` check per run. Times are epoch milliseconds with fractions, so that the job process's
// marks line up with the server's.
import { channel } from 'node:diagnostics_channel';

export const RUN_PHASES_CHANNEL = 'spreadsheet-tools.run-phases';
export const runPhases = channel(RUN_PHASES_CHANNEL);

export interface PhaseMarks {
  /** The run's handler was reached (headers read). */
  start: number;
  /** The request's last body byte was read. */
  bodyEnd?: number;
  /** The input files are decoded and checked: the job is about to be handed off. */
  jobStart?: number;
  /** The job process has the whole job (its clock). */
  got?: number;
  /** The job process has its result (its clock). */
  done?: number;
  /** This process has the whole result. */
  returned?: number;
  /** The answer's writing began. */
  answer?: number;
  /** The answer is written (handed to the kernel). */
  finish?: number;
  /** Not times: the job process that ran the job, and the resident memory it gained (MB) from the job's
   * arrival to its result, which only it can tell (a process started or collecting beside it is not the run's). */
  jobPid?: number;
  jobGrowthMb?: number;
}

export interface RunPhases {
  tool: string;
  /** How the request came: `json` or `multipart` (REST), `mcp`. */
  door: string;
  status: number;
  marks: PhaseMarks;
}

export const epochNow = (): number => performance.timeOrigin + performance.now();

/** Marks for a run that starts now, or undefined when nothing listens. */
export function startMarks(): PhaseMarks | undefined {
  return runPhases.hasSubscribers ? { start: epochNow() } : undefined;
}

export function mark(marks: PhaseMarks | undefined, name: Exclude<keyof PhaseMarks, 'start'>): void {
  if (marks) marks[name] = epochNow();
}
