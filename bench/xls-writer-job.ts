// One xlsx → xls conversion in a fresh process, for bench/xls-writer.ts: `ours` runs the xlsx-to-xls tool (its
// `full` read, which keeps number formats, merges and widths, then tools/formats/xls/write.ts); `sheetjs` reads
// and writes with SheetJS (bookType biff8).
// Prints one JSON line: the conversion's time and the process's peak RSS (VmHWM).
//   node --import tsx bench/xls-writer-job.ts ours|sheetjs in.xlsx out.xls
import { readFileSync, writeFileSync } from 'node:fs';
import * as XLSX from 'xlsx';
import tool from '../tools/convert/xlsx-to-xls.ts';
import { inputFile, runTool } from '../test/helpers/run-tool.ts';
import { procMemory } from '../tools/core/peak-memory.ts';

const [which, input, output] = process.argv.slice(2);
const baseRssMb = process.memoryUsage().rss / 2 ** 20;
const t0 = performance.now();
const bytes = new Uint8Array(readFileSync(input));
if (which === 'ours') {
  const out = await runTool(tool, [inputFile('in.xlsx', bytes)]);
  writeFileSync(output, out.files[0].bytes);
} else {
  const wb = XLSX.read(bytes, { dense: true, cellDates: true });
  writeFileSync(output, XLSX.write(wb, { type: 'buffer', bookType: 'biff8' }));
}
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, baseRssMb, maxRssMb: procMemory(process.pid)?.hwmMb ?? null }) + '\n');
