// Loaded into the bench's server (`node --import ./bench/phase-probe.ts`): writes the phase marks of every
// run (tools/core/phases.ts) as one JSON line to BENCH_PHASES_FILE, where bench/service.ts reads them.
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import { RUN_PHASES_CHANNEL } from '../tools/core/phases.ts';

const file = process.env.BENCH_PHASES_FILE;
if (file) subscribe(RUN_PHASES_CHANNEL, (message) => appendFileSync(file, JSON.stringify(message) + '\n'));
