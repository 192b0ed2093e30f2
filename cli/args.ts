// The command line of one tool run: files, the tool's options as `--name value` (booleans also alone or as
// `--no-name`), and the run's own flags (-o/--output, --force, --json, --help). Option values stay text here;
// they are typed by the tool's schema exactly as multipart fields are (bridge/multipart.ts coerceFields).
import type { CatalogueEntry } from '../bridge/catalogue.ts';

export interface ToolArgs {
  files: string[];
  /** Paths of further files by field (`--lookup-file <path>`). */
  more: Record<string, string>;
  fields: Record<string, string>;
  output?: string;
  force: boolean;
  json: boolean;
  help: boolean;
}

/** A command line that cannot be run: its locale key under `cli.errors` and the values for its text. */
export class UsageError extends Error {
  constructor(
    readonly key: string,
    readonly params: Record<string, string> = {},
  ) {
    super(key);
  }
}

const BOOLEAN_WORDS = new Set(['true', 'false']);

export function parseToolArgs(entry: CatalogueEntry, argv: readonly string[]): ToolArgs {
  const props = entry.options.properties ?? {};
  const isMore = (name: string) => entry.input.more?.some((m) => m.field === name) === true;
  const known = (name: string) => Object.hasOwn(props, name) && name !== entry.input.field && !isMore(name);
  const isBoolean = (name: string) => props[name]?.type === 'boolean';
  const out: ToolArgs = { files: [], more: {}, fields: {}, force: false, json: false, help: false };
  const set = (name: string, value: string) => {
    if (Object.hasOwn(out.fields, name)) throw new UsageError('repeated', { option: name });
    out.fields[name] = value;
  };
  let onlyFiles = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (onlyFiles || !arg.startsWith('-') || arg === '-') {
      out.files.push(arg);
      continue;
    }
    if (arg === '--') {
      onlyFiles = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') ? arg.slice(2, eq > 0 ? eq : undefined) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    const next = () => {
      if (inline !== undefined) return inline;
      const value = argv[i + 1];
      if (value === undefined) throw new UsageError('missing-value', { option: name === '-o' ? 'output' : name });
      i++;
      return value;
    };
    if (name === '-o' || name === 'output') out.output = next();
    else if (name === 'force') out.force = true;
    else if (name === 'json') out.json = true;
    else if (name === 'help' || name === '-h') out.help = true;
    else if (isMore(name)) {
      if (Object.hasOwn(out.more, name)) throw new UsageError('repeated', { option: name });
      out.more[name] = next();
    }
    else if (!known(name) && name.startsWith('no-') && known(name.slice(3))) {
      if (!isBoolean(name.slice(3))) throw new UsageError('not-boolean', { option: name.slice(3) });
      set(name.slice(3), 'false');
    } else if (!known(name)) {
      throw new UsageError('unknown-option', { option: arg.startsWith('--') ? name : arg.replace(/^-+/, ''), tool: entry.id });
    } else if (isBoolean(name) && inline === undefined) {
      // Alone it means true; a following true/false is its value (anything else is a file).
      const value = argv[i + 1];
      if (value !== undefined && BOOLEAN_WORDS.has(value)) {
        set(name, value);
        i++;
      } else set(name, 'true');
    } else set(name, next());
  }
  return out;
}
