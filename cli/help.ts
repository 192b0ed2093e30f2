// Help texts, generated from the catalogue (the same titles, descriptions and JSON Schemas that the service
// publishes), in the language of the command.
import { catalogueEntry, type CatalogueEntry } from '../bridge/catalogue.ts';
import { t, type Lang } from '../locales/index.ts';
import { listTools } from '../tools/core/registry.ts';

type Prop = { type?: string; enum?: unknown[]; anyOf?: Prop[]; default?: unknown; description?: string; minimum?: number; maximum?: number };

const WIDTH = Math.max(60, Math.min(100, process.stdout.columns || 80));

/** `text` wrapped at the terminal's width, each line after `indent` spaces. */
function wrap(text: string, indent: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => ' '.repeat(indent) + l).join('\n');
}

function valueHint(lang: Lang, p: Prop): string {
  if (p.type === 'boolean') return t(lang, 'cli.type-boolean');
  if (p.enum) return p.enum.join('|');
  const closed = p.anyOf?.find((a) => a.enum);
  if (closed) return t(lang, 'cli.type-one-of', { values: (closed.enum ?? []).join('|') });
  if (p.type === 'integer' || p.type === 'number') return t(lang, 'cli.type-integer', { min: p.minimum ?? '', max: p.maximum ?? '' });
  return t(lang, 'cli.type-text');
}

function optionLines(lang: Lang, entry: CatalogueEntry): string[] {
  const props = (entry.options.properties ?? {}) as Record<string, Prop>;
  const required = new Set(entry.options.required ?? []);
  const out: string[] = [];
  for (const [name, p] of Object.entries(props)) {
    if (name === entry.input.field) continue;
    const notes = [required.has(name) ? t(lang, 'cli.required') : null, p.default !== undefined && p.default !== '' ? t(lang, 'cli.default', { value: String(p.default) }) : null].filter(Boolean);
    // A further input file (`--lookup-file`) takes a path, as the files do.
    const hint = entry.input.more?.some((m) => m.field === name) ? t(lang, 'cli.path-arg').replace(/^<|>$/g, '') : valueHint(lang, p);
    out.push(`  --${name} <${hint}>${notes.length ? `  (${notes.join('; ')})` : ''}`);
    if (p.description) out.push(wrap(p.description, 6));
  }
  return out;
}

function generalOptions(lang: Lang): string[] {
  return [
    `${t(lang, 'cli.general-options')}:`,
    `  -o, --output ${t(lang, 'cli.path-arg')}`,
    wrap(t(lang, 'cli.opt-output'), 6),
    '  --force',
    wrap(t(lang, 'cli.opt-force'), 6),
    '  --json',
    wrap(t(lang, 'cli.opt-json'), 6),
    '  -h, --help',
    wrap(t(lang, 'cli.opt-help'), 6),
  ];
}

/** An example command for a tool: its first format, and every required option with a placeholder. */
function example(entry: CatalogueEntry): string {
  const ext = entry.input.formats[0] ?? '';
  const files = entry.input.field === 'files' ? Array.from({ length: entry.input.min ?? 2 }, (_, i) => `datos-${i + 1}${ext}`) : [`datos${ext}`];
  const required = (entry.options.required ?? []).filter((n) => n !== entry.input.field).map((n) => `--${n} …`);
  return ['spreadsheet-tools', entry.id, ...files, ...required].join(' ');
}

export function toolHelp(lang: Lang, entry: CatalogueEntry): string {
  const files = t(lang, entry.input.field === 'files' ? 'cli.files-arg' : 'cli.file-arg');
  const accepts = [t(lang, 'cli.accepts', { formats: entry.input.formats.join(' ') })];
  if (entry.input.field === 'files') accepts.push(t(lang, 'cli.files-range', { min: entry.input.min ?? 1, max: entry.input.max ?? 1 }));
  const hasBoolean = Object.entries(entry.options.properties ?? {}).find(([, p]) => p.type === 'boolean');
  return [
    `${entry.id} — ${entry.title}`,
    '',
    wrap(entry.description, 0),
    '',
    `${t(lang, 'cli.usage')}: ${t(lang, 'cli.usage-tool', { tool: entry.id, files })}`,
    accepts.join('; '),
    '',
    `${t(lang, 'cli.options')}:`,
    ...optionLines(lang, entry),
    hasBoolean ? wrap(t(lang, 'cli.boolean-forms', { name: hasBoolean[0] }), 2) : '',
    '',
    ...generalOptions(lang),
    '',
    `${t(lang, 'cli.example')}:`,
    `  ${example(entry)}`,
    '',
    wrap(t(lang, 'cli.limits'), 0),
    wrap(t(lang, 'cli.exit-codes'), 0),
    '',
  ].join('\n');
}

export function mainHelp(lang: Lang): string {
  const entries = listTools().map((tool) => catalogueEntry(tool, lang));
  const byCategory = new Map<string, CatalogueEntry[]>();
  for (const e of entries) byCategory.set(e.category.label, [...(byCategory.get(e.category.label) ?? []), e]);
  const idWidth = Math.max(...entries.map((e) => e.id.length)) + 2;
  return [
    wrap(t(lang, 'cli.summary'), 0),
    '',
    `${t(lang, 'cli.usage')}:`,
    `  ${t(lang, 'cli.usage-run')}`,
    '',
    `${t(lang, 'cli.commands')}:`,
    '  spreadsheet-tools <tool> --help',
    wrap(t(lang, 'cli.cmd-help'), 6),
    '  spreadsheet-tools serve [--port N] [--host H]',
    wrap(t(lang, 'cli.cmd-serve'), 6),
    '  spreadsheet-tools mcp --stdio',
    wrap(t(lang, 'cli.cmd-mcp'), 6),
    '',
    `${t(lang, 'cli.tools')}:`,
    ...[...byCategory].flatMap(([label, list]) => [`  ${label}`, ...list.map((e) => `    ${e.id.padEnd(idWidth)}${e.title}`)]),
    '',
    ...generalOptions(lang),
    '  --language <es|en>',
    wrap(t(lang, 'cli.opt-language'), 6),
    '',
    wrap(t(lang, 'cli.exit-codes'), 0),
    '',
  ].join('\n');
}
