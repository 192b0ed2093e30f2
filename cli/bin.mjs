#!/usr/bin/env node
// Entry of the `spreadsheet-tools` command (package.json "bin"), from a clone or an installed package alike:
// the sources are TypeScript, loaded through tsx (a dependency) as `npm start` loads them.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
