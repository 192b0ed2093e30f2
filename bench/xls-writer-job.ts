// One xlsx → xls conversion in a fresh process, for bench/xls-writer.ts: `ours` reads with the project's
// reader and writes with tools/formats/xls/write.ts; `sheetjs` reads and writes with SheetJS (bookType biff8).
// Prints one JSON line: the conversion's time and the process's peak RSS (VmHWM).
//   node --import tsx bench/xls-writer-job.ts ours|sheetjs in.xlsx out.xls
import { readFileSync, writeFileSync } from 'node:fs';
import * as XLSX from 'xlsx';
import { writeXls } from '../tools/formats/xls/write.ts';
import { openWorkbook } from '../tools/formats/index.ts';
import { procMemory } from './measure.ts';

const [which, input, output] = process.argv.slice(2);
const baseRssMb = process.memoryUsage().rss / 2 ** 20;
const t0 = performance.now();
const bytes = new Uint8Array(readFileSync(input));
if (which === 'ours') {
  const ctx = { limits: { maxCells: 1e8 }, message: () => {}, t: (k: string) => k, name: (k: string) => k };
  const tables = openWorkbook({ name: 'in.xlsx', bytes }, ctx, { hasHeader: false }).sheets.map((s) => s.table());
  const out = await writeXls({ sheets: tables.map((t) => ({ name: t.name, rows: [t.rows()] })) });
  writeFileSync(output, out.bytes);
} else {
  const wb = XLSX.read(bytes, { dense: true, cellDates: true });
  writeFileSync(output, XLSX.write(wb, { type: 'buffer', bookType: 'biff8' }));
}
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, baseRssMb, maxRssMb: procMemory(process.pid)?.hwmMb ?? null }) + '\n');
