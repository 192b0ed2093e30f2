// Runs a range of fuzz cases through the kernel (jobs inline) in a child process of the fuzz test, and
// reports each case's start and outcome, so that the test can stop this process if a case never returns. A
// process, not a thread: a case that exhausts memory in some shapes would abort the test's whole process
// from a thread (nodejs/node issue 47224); here it costs this process, and the test resumes after it.
import { parseConfig } from '../../tools/core/config.ts';
import { ToolError } from '../../tools/core/errors.ts';
import { createKernel } from '../../tools/core/kernel.ts';
import { fuzzCase, recipe } from './fuzz-cases.ts';

export interface FuzzRange {
  seed: number;
  from: number;
  to: number;
  /** The DATA_DIR of the kernel, made and removed by the test (this process may be stopped with SIGKILL). */
  dataDir: string;
}

export type FuzzMessage =
  | { type: 'start'; index: number }
  | { type: 'outcome'; index: number; outcome: string; ms: number }
  | { type: 'failure'; index: number; recipe: string; error: string }
  | { type: 'end' };

async function main({ seed, from, to, dataDir }: FuzzRange): Promise<void> {
  const post = (m: FuzzMessage) => process.send!(m);
  let current = from;
  process.on('unhandledRejection', (err) => post({ type: 'failure', index: current, recipe: recipe(seed, fuzzCase(seed, current)), error: `unhandled rejection: ${(err as Error)?.stack ?? String(err)}` }));
  const config = parseConfig({ ANON_RUNS_PER_HOUR: '1000000000', DATA_DIR: dataDir, MAX_JOBS: '1', JOB_TIMEOUT_S: '10' });
  const kernel = createKernel(config, { jobs: 'inline' });
  for (let i = from; i < to; i++) {
    current = i;
    const c = fuzzCase(seed, i);
    // Reported once the input is made: the watch is on the service's time, not the generator's.
    post({ type: 'start', index: i });
    const t0 = performance.now();
    let outcome = 'ok';
    try {
      await kernel.invoke(c.tool, { args: c.options, files: c.files }, { ip: 'fuzz' });
    } catch (err) {
      if (!(err instanceof ToolError) || err.code === 'internal_error') {
        const cause = err instanceof ToolError ? err.detail.cause : err;
        post({ type: 'failure', index: i, recipe: recipe(seed, c), error: (cause as Error)?.stack ?? String(cause) });
      }
      outcome = err instanceof ToolError ? err.code : 'thrown';
    }
    post({ type: 'outcome', index: i, outcome, ms: performance.now() - t0 });
  }
  process.send!({ type: 'end' } satisfies FuzzMessage, () => process.exit(0));
}

if (process.send) await main(JSON.parse(process.argv[2]) as FuzzRange);
