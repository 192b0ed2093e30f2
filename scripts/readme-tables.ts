// The README's generated tables: tools, configuration, error codes and the size of MCP tools/list, all
// derived from the code.
import { LANGS, t } from '../locales/index.ts';
import { budgetedOptions, LIST_BUDGET, listBytes } from '../mcp/tool-list.ts';
import { CONFIG_VARIABLES } from '../tools/core/config.ts';
import { ERROR_STATUS } from '../tools/core/errors.ts';
import { extensionsOf } from '../tools/core/files.ts';
import { listTools } from '../tools/core/registry.ts';
import { jsonSchemaOf } from '../tools/core/schema.ts';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function toolsTable(): string {
  const rows = listTools().map((tool) => {
    const options = Object.keys(jsonSchemaOf(tool, 'en').properties ?? {}).filter((o) => o !== tool.input.kind && o !== 'language');
    const formats = extensionsOf(tool.input.formats).join(' ');
    return `| \`${tool.id}\` | ${t('en', `categories.${tool.category}`)} | ${cell(t('en', `tools.${tool.id}.description`))} | ${formats} | ${options.map((o) => `\`${o}\``).join(', ')} |`;
  });
  return ['| tool | category | what it does | input | options |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

export function configTable(): string {
  const rows = Object.entries(CONFIG_VARIABLES).map(([name, v]) => {
    const shown = 'shownDefault' in v && v.shownDefault ? v.shownDefault : v.default === '' ? '(unset)' : `\`${v.default}\``;
    return `| \`${name}\` | ${shown} | ${cell(v.description)} |`;
  });
  return ['| variable | default | meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

export function errorsTable(): string {
  const rows = Object.entries(ERROR_STATUS).map(([code, status]) => `| \`${code}\` | ${status} | ${cell(t('en', `errors.${code}`))} |`);
  return ['| error | status | message (en; placeholders filled per call) |', '| --- | --- | --- |', ...rows].join('\n');
}

const n = (x: number) => x.toLocaleString('en-US');

/** Bytes of tools/list per language against the allowance of the listed tools and the 35-tool budget. */
export function mcpSizeTable(): string {
  const tools = listTools();
  const options = tools.reduce((sum, tool) => sum + budgetedOptions(tool).length, 0);
  const allowance = tools.length * LIST_BUDGET.perTool + options * LIST_BUDGET.perOption;
  const rows = LANGS.map((lang) => {
    const bytes = listBytes(lang);
    return `| \`${lang}\` | ${tools.length} | ${options} | ${n(bytes)} | ${n(Math.round(bytes / tools.length))} | ${n(allowance)} | ${n(LIST_BUDGET.bytes)} |`;
  });
  return ['| language | tools | options | bytes of tools/list | per tool | allowance of these tools | budget for all 35 |', '| --- | --- | --- | --- | --- | --- | --- |', ...rows].join('\n');
}

export const SECTIONS = { tools: toolsTable, config: configTable, errors: errorsTable, 'mcp-size': mcpSizeTable } as const;

/** README text with every generated section replaced between its markers. */
export function renderReadme(readme: string): string {
  let out = readme;
  for (const [name, make] of Object.entries(SECTIONS)) {
    const re = new RegExp(`(<!-- generated:${name} -->)[\\s\\S]*?(<!-- /generated:${name} -->)`);
    if (!re.test(out)) throw new Error(`README has no markers for ${name}`);
    out = out.replace(re, (_m, open: string, close: string) => `${open}\n${make()}\n${close}`);
  }
  return out;
}
