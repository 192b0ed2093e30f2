// The fast readers (tools/formats/xlsx/, tools/formats/xls/) checked against SheetJS: the same bytes are read once
// by the reader openWorkbook picks and once by SheetJS, the reader of last resort, and must give the same tables
// (names, titles, typed title cells, rows with their types) and the same messages.
import assert from 'node:assert/strict';
import { NeedsFallback } from '../../tools/formats/errors.ts';
import { readFirstTable, readTables, type ReadOptions } from './read-tables.ts';
import { inputFile } from './run-tool.ts';

type Msg = { level: string; key: string; params?: Record<string, string | number> };

/** Every table (all sheets, then the first alone) and every message, the file's name replaced by a mark. */
export function readAll(name: string, bytes: Uint8Array, hasHeader: boolean, maxCells?: number, reader?: 'sheetjs') {
  const msgs: Msg[] = [];
  const report = (level: string, key: string, params?: Record<string, string | number>) =>
    void msgs.push({ level, key, params: params && { ...params, ...(params.name === name ? { name: '<file>' } : {}) } });
  const o: ReadOptions = { hasHeader, sheets: 'all', detectTypes: true, report, maxCells, reader };
  const all = readTables(inputFile(name, bytes), o);
  const first = readFirstTable(inputFile(name, bytes), { hasHeader, detectTypes: true, report, maxCells, reader });
  return { all, first, msgs };
}

/**
 * Asserts that `readFast` reads the file itself (a NeedsFallback would hide a difference behind SheetJS),
 * then that the file named `name` reads the same through its fast reader and through SheetJS, with and
 * without a title row.
 */
export function assertSameBothWays(readFast: () => unknown, bytes: Uint8Array, label: string, name: string): void {
  try {
    readFast();
  } catch (err) {
    if (err instanceof NeedsFallback) assert.fail(`${label}: the fast path handed the file to SheetJS (${err.message})`);
    throw err;
  }
  for (const hasHeader of [true, false]) {
    assert.deepEqual(readAll(name, bytes, hasHeader), readAll(name, bytes, hasHeader, undefined, 'sheetjs'), `${label} (has-header ${hasHeader})`);
  }
}
