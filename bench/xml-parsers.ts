// Which XML parser xml-to-excel uses, settled by numbers: streaming parsers over the same decoded text of an
// excel-to-xml file (default 160,000 rows × 10 columns, about 50 MB), each counting elements and text, runs
// interleaved so that a busy moment hurts every parser alike; medians and peak RSS growth.
//
// saxes (the dependency) always runs. sax, already in the tree (pdfmake → xmldoc), runs when present, and so do
// candidates installed OUTSIDE the project:
//   mkdir /tmp/xmlbench && cd /tmp/xmlbench && npm i fast-xml-parser
//   XML_BENCH_MODULES=/tmp/xmlbench/node_modules node --expose-gc --import tsx bench/xml-parsers.ts
// Environment: BENCH_ROWS (160000), BENCH_RUNS (3).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SaxesParser } from 'saxes';
import { tableOf } from '../tools/formats/batch.ts';
import { writeXml } from '../tools/formats/index.ts';
import { mediumRows, TITLES } from './inputs.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 160_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const MODULES = process.env.XML_BENCH_MODULES ?? '';
const require = createRequire(import.meta.url);
const PIECE = 1 << 20;

type Parse = (text: string) => number;

function saxes(text: string): number {
  const p = new SaxesParser({ xmlns: false, position: true });
  let n = 0;
  p.on('opentag', () => n++);
  p.on('text', (t) => void (n += t.length & 0));
  for (let i = 0; i < text.length; i += PIECE) p.write(text.slice(i, i + PIECE));
  p.close();
  return n;
}

function sax(mod: any): Parse {
  return (text) => {
    const p = mod.parser(true, { position: true });
    let n = 0;
    p.onopentag = () => n++;
    p.ontext = () => {};
    p.onerror = (e: Error) => {
      throw e;
    };
    for (let i = 0; i < text.length; i += PIECE) p.write(text.slice(i, i + PIECE));
    p.close();
    return n;
  };
}

/** fast-xml-parser builds the whole document as objects (no streaming): rows of the root's `fila` list. */
function fxp(mod: any): Parse {
  return (text) => {
    const doc = new mod.XMLParser({ ignoreAttributes: false, processEntities: true, parseTagValue: false }).parse(text);
    return doc.datos.fila.length * (TITLES.length + 1);
  };
}

async function main(): Promise<void> {
  const table = tableOf({ name: 'x', header: TITLES, rows: mediumRows(ROWS) });
  const text = new TextDecoder().decode(writeXml(table, { root: 'datos', row: 'fila', names: TITLES, pretty: true }).bytes);
  console.log(`${ROWS} rows, ${(text.length / 1e6).toFixed(1)} M characters`);
  const candidates: [string, Parse][] = [['saxes ' + require('saxes/package.json').version, saxes]];
  try {
    candidates.push(['sax ' + require('sax/package.json').version, sax(require('sax'))]);
  } catch {
    console.log('sax: not installed');
  }
  const fxpDir = join(MODULES, 'fast-xml-parser');
  if (MODULES && existsSync(fxpDir)) {
    const version = require(join(fxpDir, 'package.json')).version;
    candidates.push([`fast-xml-parser ${version}`, fxp(await import(pathToFileURL(join(fxpDir, 'lib', 'fxp.cjs')).href))]);
  }
  const times = new Map<string, number[]>();
  const growth = new Map<string, number>();
  for (let run = 0; run < RUNS; run++) {
    for (const [name, parse] of candidates) {
      (globalThis as { gc?: () => void }).gc?.();
      const before = process.memoryUsage().rss;
      const t0 = performance.now();
      parse(text);
      const ms = performance.now() - t0;
      times.set(name, [...(times.get(name) ?? []), ms]);
      growth.set(name, Math.max(growth.get(name) ?? 0, process.memoryUsage().rss - before));
    }
  }
  for (const [name, list] of times) {
    const median = [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
    console.log(`${name.padEnd(24)} median ${Math.round(median)} ms (${list.map(Math.round).join(', ')}), RSS growth up to ${Math.round(growth.get(name)! / 1e6)} MB`);
  }
}

await main();
