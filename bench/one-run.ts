// Runs one task once through the kernel code path in a fresh process and prints one JSON line: the time of
// the run and the process's peak RSS, the memory figure to compare with a peer's (also a whole process).
// The peak is VmHWM, which belongs to this process's own address space: `resourceUsage().maxRSS` would
// carry over the parent's RSS from before exec (Linux keeps the high-water mark of the forked image).
//   node --import tsx bench/one-run.ts '{"tool":"…","options":{…},"files":["/abs/in.xlsx"],"limits":{…}}'
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { procMemory } from '../tools/core/peak-memory.ts';
import { runService, type ServiceSpec } from './service.ts';

const spec = JSON.parse(process.argv[2]) as ServiceSpec & { files: string[]; fields?: (string | null)[] };
// Module loading is done: what the process holds now is the runtime, not the job.
const baseRssMb = process.memoryUsage().rss / 2 ** 20;
const files = spec.files.map((p, i) => ({ name: basename(p), bytes: new Uint8Array(readFileSync(p)), ...(spec.fields?.[i] ? { field: spec.fields[i]! } : {}) }));
const run = await runService(spec, files);
const maxRssMb = procMemory(process.pid)?.hwmMb ?? process.resourceUsage().maxRSS / 1024;
process.stdout.write(JSON.stringify({ ...run, result: undefined, baseRssMb, maxRssMb }) + '\n');
