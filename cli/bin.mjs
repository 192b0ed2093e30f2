#!/usr/bin/env node
// Entry of the `spreadsheet-tools` command (package.json "bin"), from a clone or an installed package alike:
// the sources are TypeScript, loaded through tsx (a dependency) as `npm start` loads them.
import { register } from 'tsx/esm/api';

register();
// `serve` restarts with the server's V8 flags (mcp/relaunch.ts) before the command's own modules load.
if (process.argv[2] === 'serve') await import('../mcp/relaunch.ts');
await import('./main.ts');
