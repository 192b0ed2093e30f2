// The SheetJS peer of csv-to-excel: read the CSV in dense mode (SheetJS types numbers, booleans and dates
// itself) and write a compressed .xlsx. Plain Node, no tsx, so it starts like any small CLI would.
//   node sheetjs-csv-to-xlsx.mjs <input.csv> <output.xlsx>
import { readFileSync, writeFileSync } from 'node:fs';
import * as XLSX from 'xlsx';

const [input, output] = process.argv.slice(2);
const wb = XLSX.read(readFileSync(input, 'utf8'), { type: 'string', dense: true, cellDates: true });
writeFileSync(output, XLSX.write(wb, { type: 'buffer', bookType: 'xlsx', compression: true }));
