// The job timer's arithmetic (jobs.ts runTimeLeft): a run's time counts from when its worker started it,
// whenever that was, and a run whose worker never starts is given up after the start allowance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runTimeLeft } from '../../tools/core/jobs.ts';

const RUN = 500;
const START = 30_000;

test('job deadline: a run started at once has its whole time from its start', () => {
  assert.equal(runTimeLeft(RUN, 1, RUN, START), 1);
  assert.equal(runTimeLeft(RUN + 1, 1, RUN, START), 0);
  assert.ok(runTimeLeft(RUN + 50, 3, RUN, START) < 0);
});

test('job deadline: a worker still starting when a run time has passed is looked at again one run time later', () => {
  // Not started after 500 ms: the run cannot end before 1,000 ms, so the timer looks again then.
  assert.equal(runTimeLeft(RUN, 0, RUN, START), RUN);
  // It started at 2,000 ms (the worker took that long to load): stopped at 2,500 ms, not at 30,500 ms.
  assert.equal(runTimeLeft(2_400, 2_000, RUN, START), 100);
  assert.equal(runTimeLeft(2_500, 2_000, RUN, START), 0);
});

test('job deadline: a run that never starts is given up once the start allowance and a run time have passed', () => {
  assert.equal(runTimeLeft(RUN + START - 200, 0, RUN, START), 200);
  assert.ok(runTimeLeft(RUN + START, 0, RUN, START) <= 0);
});

test("job deadline: a start reported later than what has elapsed here counts from now, never later", () => {
  // The worker's clock says it started 9 s after posting, but only 600 ms have passed on this thread.
  assert.equal(runTimeLeft(600, 9_000, RUN, START), RUN);
});
