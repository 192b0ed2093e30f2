// `node --import tsx bench/ods-xml.ts`: the ODS reader's XML tokenizer chosen by measurement. The content.xml
// of a 65,536 × 10 sheet (written by tools/formats/ods/write.ts) is tokenized, cells counted, by the project's
// xml-scan.ts (bytes, no strings unless asked) and by saxes (a well-kept conforming SAX parser, strings), 3 runs
// alternated, after one warm-up each.
import { unzipSync } from 'fflate';
import { SaxesParser } from 'saxes';
import { writeOds } from '../tools/formats/ods/write.ts';
import { nameIs, XmlScanner } from '../tools/formats/xml/scan.ts';
import { mediumRows, TITLES } from './inputs.ts';

const rows = [TITLES, ...mediumRows(65_535)];
const ods = await writeOds({ sheets: [{ name: 'Datos', rows: [rows] }] });
const xml = unzipSync(ods.bytes)['content.xml'];
const CHUNK = 256 * 1024;

function scan(): number {
  let cells = 0;
  const s = new XmlScanner({
    open: (b, ln, le) => void (nameIs(b, ln, le, 'table-cell') && cells++),
    close: () => {},
    text: () => {},
  });
  for (let i = 0; i < xml.length; i += CHUNK) s.push(xml.subarray(i, i + CHUNK));
  s.end();
  return cells;
}

function saxes(): number {
  let cells = 0;
  const p = new SaxesParser({ xmlns: false });
  p.on('opentag', (t) => void (t.name === 'table:table-cell' && cells++));
  const dec = new TextDecoder();
  for (let i = 0; i < xml.length; i += CHUNK) p.write(dec.decode(xml.subarray(i, i + CHUNK), { stream: true }));
  p.close();
  return cells;
}

const ways = { 'xml-scan': scan, saxes };
const times: Record<string, number[]> = { 'xml-scan': [], saxes: [] };
for (const [, f] of Object.entries(ways)) f();
for (let run = 0; run < 3; run++) {
  for (const [name, f] of run % 2 ? Object.entries(ways).reverse() : Object.entries(ways)) {
    const t0 = performance.now();
    f();
    times[name].push(performance.now() - t0);
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[1];
console.log(`content.xml ${(xml.length / 2 ** 20).toFixed(1)} MB, cells ${scan()} (saxes ${saxes()})`);
for (const [name, xs] of Object.entries(times)) console.log(`${name.padEnd(9)} median ${Math.round(med(xs))} ms`);
