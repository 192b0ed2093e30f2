// `npm run docs`: rewrites the generated sections of README.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { renderReadme } from './readme-tables.ts';

const path = new URL('../README.md', import.meta.url);
writeFileSync(path, renderReadme(readFileSync(path, 'utf8')));
console.log('README.md tables updated');
