// The service's front door alone, for the small-file load (http-load.ts): the real app, kernel and worker pool,
// whose workers answer each run with the result of the same run made once at start (canned-run.mjs). The
// service's rate against this one's tells the cost of the run from the cost of everything around it.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createApp } from '../../mcp/app.ts';
import { listen } from '../../mcp/http-server.ts';
import { parseConfig } from '../../tools/core/config.ts';
import { execute } from '../../tools/core/execute.ts';
import { createKernel } from '../../tools/core/kernel.ts';
import { getTool } from '../../tools/core/registry.ts';
import { optionsSchema, parseOptions } from '../../tools/core/schema.ts';

const input = process.env.CANNED_INPUT!;
const tool = getTool(process.env.CANNED_TOOL!);
const opts = parseOptions(optionsSchema(tool), {});
const { files, ...rest } = await execute(tool, [{ name: basename(input), bytes: new Uint8Array(readFileSync(input)) }], opts, { lang: 'es', download: true });
if (files.length !== 1) throw new Error('front-door: one result file expected');
const base = join(mkdtempSync(join(tmpdir(), 'front-door-')), 'result');
writeFileSync(`${base}.json`, JSON.stringify({ ...rest, files: [{ name: files[0].name, contentType: files[0].contentType }] }));
writeFileSync(`${base}.bin`, files[0].bytes);
process.env.CANNED_RESULT = base;

const config = parseConfig();
await listen(createApp(createKernel(config, { workerModule: new URL('./canned-run.mjs', import.meta.url) })), config);
