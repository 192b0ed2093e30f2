// The service's front door alone, for the small-file load (http-load.ts): the real app, kernel and job processes,
// whose job module answers each run with the result of the same run made once at start (canned-run.mjs). The
// service's rate against this one's tells the cost of the run from the cost of everything around it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { createApp } from '../../mcp/app.ts';
import { listen } from '../../mcp/http-server.ts';
import { parseConfig, toolLimitsOf } from '../../tools/core/config.ts';
import { createKernel } from '../../tools/core/kernel.ts';
import { runService } from '../service.ts';

const config = parseConfig();
const input = process.env.CANNED_INPUT!;
const run = await runService({ tool: process.env.CANNED_TOOL!, options: {}, limits: toolLimitsOf(config) }, [{ name: basename(input), bytes: new Uint8Array(readFileSync(input)) }]);
if (!run.result || run.result.files.length !== 1) throw new Error(`front-door: the run gave no single file (${run.code ?? run.outFiles})`);
const { files, ...rest } = run.result;
// Kept in this service's DATA_DIR (bench/service.ts makes one per start and removes it at close): a folder of
// its own would stay behind, this process ending on SIGTERM with no chance to remove it.
mkdirSync(config.DATA_DIR, { recursive: true });
const base = join(resolve(config.DATA_DIR), 'canned-result');
writeFileSync(`${base}.json`, JSON.stringify({ ...rest, files: [{ name: files[0].name, contentType: files[0].contentType }] }));
writeFileSync(`${base}.bin`, files[0].bytes);
process.env.CANNED_RESULT = base;

await listen(createApp(createKernel(config, { workerModule: new URL('./canned-run.mjs', import.meta.url) })), config);
