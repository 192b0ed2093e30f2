// Runs a tool in-process through the kernel's real file checks, option validation and packaging
// (no worker, no quota): what tool tests need.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Lang } from '../../locales/index.ts';
import type { AnyTool, Tool, OptionsSchema } from '../../tools/core/define.ts';
import { execute, type RunResult } from '../../tools/core/execute.ts';
import { checkFiles, type InputFile } from '../../tools/core/files.ts';
import { optionsSchema, parseOptions } from '../../tools/core/schema.ts';

export async function runTool<S extends OptionsSchema>(
  tool: Tool<S>,
  files: InputFile[],
  options: Record<string, unknown> = {},
  o: { lang?: Lang; download?: boolean } = {},
): Promise<RunResult> {
  const any = tool as unknown as AnyTool;
  checkFiles(any.input, files);
  const opts = parseOptions(optionsSchema(any), options);
  return execute(any, files, opts, { lang: o.lang ?? (opts.language as Lang | undefined) ?? 'es', download: o.download ?? false });
}

const FIXTURES = new URL('../fixtures/', import.meta.url);

/** A committed fixture from test/fixtures, as an input file (optionally under another name). */
export function fixture(name: string, as?: string): InputFile {
  return { name: as ?? basename(name), bytes: new Uint8Array(readFileSync(new URL(name, FIXTURES))) };
}

/** An input file from text (UTF-8) or bytes. */
export function inputFile(name: string, content: string | Uint8Array): InputFile {
  return { name, bytes: typeof content === 'string' ? new TextEncoder().encode(content) : content };
}
