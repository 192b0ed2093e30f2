// What a tool is: data (id, category, input, options, annotations) plus one `run` function.
import type * as v from 'valibot';
import type { Lang } from '../../locales/index.ts';
import type { ToolLimits } from './config.ts';
import type { InputFile, InputSpec } from './files.ts';
import type { OutputFile } from './output.ts';
import type { AnyCell, FormatContext, TableData, Written } from '../formats/index.ts';

export const CATEGORIES = ['merge-split', 'convert'] as const;
export type CategoryId = (typeof CATEGORIES)[number];

export type MessageLevel = 'info' | 'warning' | 'error';
export interface Message {
  level: MessageLevel;
  text: string;
}

/** The run as a tool sees it; readers and writers take it as their FormatContext. */
export interface ToolContext extends FormatContext {
  lang: Lang;
  /** Localized text; keys as in locales/*.json. */
  t(key: string, params?: Record<string, string | number>): string;
  /** Aborted when the run is stopped (time limit). Long loops may check it. */
  signal: AbortSignal;
  /** Bounds the tool applies while it works (cells read, PDF rows). */
  limits: ToolLimits;
  /**
   * A result file; the name is sanitized and the media type follows from its extension, with `charset` in place
   * of UTF-8 for a text written in another encoding.
   */
  file(name: string, content: Uint8Array | Written, o?: { charset?: string }): OutputFile;
  /** A localized generated name, e.g. name('part', { n: '001' }) → `parte-001`. */
  name(key: string, params?: Record<string, string | number>): string;
  /** Adds a localized message (`messages.<key>`) to the result. */
  message(level: MessageLevel, key: string, params?: Record<string, string | number>): void;
}

export interface ToolOutput {
  files: OutputFile[];
  /** The first result table, for the preview; omit when the result is no table. */
  preview?: TableData<AnyCell> | null;
}

export interface ToolInput {
  /** The single file of a `file` tool (the first of `files` otherwise). */
  file: InputFile;
  files: InputFile[];
  /** The further files the tool declares (`input.more`), by field: `more['lookup-file']`. */
  more: Record<string, InputFile>;
}

export type OptionsSchema = v.StrictObjectSchema<v.ObjectEntries, undefined>;

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface Tool<S extends OptionsSchema = OptionsSchema> {
  id: string;
  category: CategoryId;
  input: InputSpec;
  /** Options without `file`/`files` and `language`, which the kernel adds. */
  options: S;
  /**
   * Options whose default follows the language: option → locale key of the default (`names.row`). The schema
   * declares '' (empty means "default") and the tool resolves it; JSON Schemas show the text of their language.
   */
  localizedDefaults?: Record<string, string>;
  annotations: ToolAnnotations;
  run(input: ToolInput, opts: v.InferOutput<S>, ctx: ToolContext): Promise<ToolOutput> | ToolOutput;
  /**
   * Loads what the tool's first run in a process would load for it alone (a library no other tool uses):
   * called in a job process that loads to replace one that ran the tool, before it takes runs.
   */
  prepare?(): void;
}

const DEFAULT_ANNOTATIONS: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** Declares a tool; `opts` in `run` is typed from the schema, defaults applied. */
export function defineTool<S extends OptionsSchema>(
  def: Omit<Tool<S>, 'annotations'> & { annotations?: ToolAnnotations },
): Tool<S> {
  return { ...def, annotations: { ...DEFAULT_ANNOTATIONS, ...def.annotations } };
}

/** A tool with its option types erased, as the registry and adapters hold it. */
export type AnyTool = Tool<OptionsSchema>;
