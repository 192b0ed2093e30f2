// The fast readers (tools/sheet/xlsx/, tools/sheet/xls/) checked against SheetJS: the same bytes are read once
// under the fast reader's extension and once under an extension read-table sends to SheetJS, and must give the
// same tables (names, titles, typed title cells, rows with their types) and the same messages.
import assert from 'node:assert/strict';
import { readFirstTable, readTables, type ReadOptions } from '../../tools/formats/read-table.ts';
import { NeedsFallback } from '../../tools/formats/errors.ts';
import { inputFile } from './run-tool.ts';

type Msg = { level: string; key: string; params?: Record<string, string | number> };

/** Every table (all sheets, then the first alone) and every message, the file's name replaced by a mark. */
export function readAll(name: string, bytes: Uint8Array, hasHeader: boolean, maxCells?: number) {
  const msgs: Msg[] = [];
  const report = (level: string, key: string, params?: Record<string, string | number>) =>
    void msgs.push({ level, key, params: params && { ...params, ...(params.name === name ? { name: '<file>' } : {}) } });
  const o: ReadOptions = { hasHeader, sheets: 'all', detectTypes: true, report, maxCells };
  const all = readTables(inputFile(name, bytes), o);
  const first = readFirstTable(inputFile(name, bytes), { hasHeader, detectTypes: true, report, maxCells });
  return { all, first, msgs };
}

/**
 * Asserts that `readFast` reads the file itself (a NeedsFallback would hide a difference behind SheetJS),
 * then that the file named `fast` and named `sheetjs` reads the same, with and without a title row.
 */
export function assertSameBothWays(readFast: () => unknown, bytes: Uint8Array, label: string, names: { fast: string; sheetjs: string }): void {
  try {
    readFast();
  } catch (err) {
    if (err instanceof NeedsFallback) assert.fail(`${label}: the fast path handed the file to SheetJS (${err.message})`);
    throw err;
  }
  for (const hasHeader of [true, false]) {
    assert.deepEqual(readAll(names.fast, bytes, hasHeader), readAll(names.sheetjs, bytes, hasHeader), `${label} (has-header ${hasHeader})`);
  }
}
