// The editing tools copy a workbook's other sheets as they are; a sheet whose streamed read turns out to need
// another read (a cell left of the columns its first rows decided: book.ts Restart) must still be written once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import mergeByKey from '../../../tools/merge-split/merge-by-key.ts';
import mergeColumns from '../../../tools/merge-split/merge-columns.ts';
import splitColumn from '../../../tools/merge-split/split-column.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { openpyxlTyped } from '../../helpers/openpyxl-typed.ts';

const LATE_ROWS = 1400;

async function book(): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Claves').addRows([
    ['K', 'V', 'W'],
    ['k1', 1, 'a b'],
  ]);
  const other = wb.addWorksheet('Otra');
  for (let r = 1; r <= LATE_ROWS; r++) {
    other.getCell(r, 2).value = r;
    other.getCell(r, 3).value = `t${r}`;
  }
  other.getCell(LATE_ROWS + 1, 1).value = 'izquierda';
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

test('editing tools keep another sheet whose read restarts, each row once (openpyxl)', async () => {
  const main = inputFile('libro.xlsx', await book());
  const lookup = { ...inputFile('claves.csv', 'K,Z\nk1,zeta\n'), field: 'lookup-file' };
  const runs = [
    ['merge-columns', () => runTool(mergeColumns, [main], { columns: '1,2' })],
    ['split-column', () => runTool(splitColumn, [main], { column: 'W' })],
    ['merge-by-key', () => runTool(mergeByKey, [main, lookup], { key: 'K' })],
  ] as const;
  for (const [name, run] of runs) {
    const out = await run();
    const sheets = openpyxlTyped(out.files[0].bytes);
    assert.deepEqual(sheets.map((s) => s.name), ['Claves', 'Otra'], name);
    const rows = sheets[1].rows;
    assert.equal(rows.length, LATE_ROWS + 1, name);
    assert.deepEqual(rows[0], [['NoneType', null], ['int', '1'], ['str', 't1']], name);
    assert.deepEqual(rows[LATE_ROWS - 1], [['NoneType', null], ['int', String(LATE_ROWS)], ['str', `t${LATE_ROWS}`]], name);
    assert.deepEqual(rows[LATE_ROWS], [['str', 'izquierda'], ['NoneType', null], ['NoneType', null]], name);
  }
});
