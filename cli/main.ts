// The `spreadsheet-tools` command: a tool run on this machine, its help, `serve` (the service) and
// `mcp --stdio` (the tools over MCP on stdio). See `spreadsheet-tools --help`.
import { readFileSync } from 'node:fs';
import { t } from '../locales/index.ts';
import { listTools } from '../tools/core/registry.ts';
import { mainHelp } from './help.ts';
import { langOf } from './local.ts';
import { EXIT, runCommand } from './run.ts';

const argv = process.argv.slice(2);
const lang = langOf(argv);
// The command is the first word that is neither a flag nor the value of a leading --language.
let at = 0;
while (at < argv.length && argv[at].startsWith('-')) at += argv[at] === '--language' ? 2 : 1;
const command = argv[at];
const rest = [...argv.slice(0, at), ...argv.slice(at + 1)];
const fail = (key: string, params: Record<string, string> = {}) => {
  process.stderr.write(`spreadsheet-tools: ${t(lang, `cli.errors.${key}`, params)}\n`);
  return EXIT.usage;
};

async function main(): Promise<number> {
  if (command === undefined) {
    if (argv.includes('--version')) {
      process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
      return EXIT.ok;
    }
    process.stdout.write(mainHelp(lang));
    return argv.includes('--help') || argv.includes('-h') ? EXIT.ok : EXIT.usage;
  }
  if (command === 'help') {
    const tool = listTools().find((x) => x.id === rest.find((a) => !a.startsWith('-')));
    return tool ? runCommand(tool, ['--help'], lang) : (process.stdout.write(mainHelp(lang)), EXIT.ok);
  }
  if (command === 'serve') {
    for (const [flag, variable] of [['--port', 'PORT'], ['--host', 'HOST']] as const) {
      const i = rest.indexOf(flag);
      if (i >= 0) {
        if (rest[i + 1] === undefined) return fail('missing-value', { option: flag.slice(2) });
        process.env[variable] = rest[i + 1];
      }
    }
    await import('../mcp/main.ts');
    return new Promise<number>(() => {}); // the service runs until a signal ends the process
  }
  if (command === 'mcp') {
    if (!rest.includes('--stdio')) return fail('mcp-transport');
    const { serveStdio } = await import('./mcp-stdio.ts');
    await serveStdio(lang);
    return EXIT.ok;
  }
  const tool = listTools().find((x) => x.id === command);
  if (!tool) return fail('unknown-tool', { tool: command.slice(0, 100) });
  return runCommand(tool, rest, lang);
}

process.exitCode = await main();
