import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as v from 'valibot';
import { t } from '../../locales/index.ts';
import { columnList, listItems, resolveColumn, resolveColumns, resolveSheets } from '../../tools/core/columns.ts';
import { ToolError } from '../../tools/core/errors.ts';

const en = { t: (key: string, params?: Record<string, string | number>) => t('en', key, params) };
const table = { header: ['Id', 'City', ' amount ', 'city', '2024', ''], width: 6 };

/** The ToolError `fn` throws, with its message as a user reads it in English. */
function refusal(fn: () => unknown): { code: string; option?: string; message: string } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ToolError, String(e));
    const message = e.detail.messageKey ? t('en', e.detail.messageKey, e.detail.params ?? {}) : e.message;
    return { code: e.code, option: e.detail.option, message };
  }
  assert.fail('no error thrown');
}

test('columns: an exact title first, then digits as a position, then a title ignoring case and outer spaces', () => {
  assert.equal(resolveColumn(table, 'Id', 'key', en), 0);
  assert.equal(resolveColumn(table, 'City', 'key', en), 1);
  assert.equal(resolveColumn(table, 'city', 'key', en), 3);
  // A title made of digits wins over the position it would be.
  assert.equal(resolveColumn(table, '2024', 'key', en), 4);
  assert.equal(resolveColumn(table, '3', 'key', en), 2);
  assert.equal(resolveColumn(table, 3, 'key', en), 2);
  assert.equal(resolveColumn(table, 'AMOUNT', 'key', en), 2);
});

test('columns: an unknown or ambiguous reference is invalid_option naming the option and listing the titles', () => {
  const unknown = refusal(() => resolveColumn(table, 'Price', 'key', en));
  assert.equal(unknown.code, 'invalid_option');
  assert.equal(unknown.option, 'key');
  assert.match(unknown.message, /"key" names no column of the table: "Price"/);
  // An empty title is listed by its position.
  assert.match(unknown.message, /"Id", "City", " amount ", "city", "2024", "6"|Id.*City.*amount.*city.*2024.*6/);
  assert.equal(refusal(() => resolveColumn(table, 7, 'key', en)).code, 'invalid_option');
  assert.equal(refusal(() => resolveColumn(table, '0', 'key', en)).code, 'invalid_option');
  const ambiguous = refusal(() => resolveColumn(table, 'CITY', 'key', en));
  assert.match(ambiguous.message, /matches several columns/);
});

test('columns: without titles only positions resolve, and the message says so', () => {
  const bare = { header: null, width: 3 };
  assert.equal(resolveColumn(bare, '2', 'column', en), 1);
  const e = refusal(() => resolveColumn(bare, 'Name', 'column', en));
  assert.match(e.message, /positions 1 to 3 \(the table has no title row\)/);
});

test('columns: lists keep the order given, refuse repeats, empty items and counts out of bounds', () => {
  assert.deepEqual(resolveColumns(table, '2024, Id ,3', 'columns', en), [4, 0, 2]);
  assert.deepEqual(resolveColumns(table, ['City', 1], 'columns', en), [1, 0]);
  assert.deepEqual(resolveColumns(table, '', 'columns', en), []);
  assert.match(refusal(() => resolveColumns(table, 'Id,1', 'columns', en)).message, /names the same column twice \("Id" and "1"\)/);
  assert.match(refusal(() => resolveColumns(table, 'Id,,City', 'columns', en)).message, /empty item/);
  assert.match(refusal(() => resolveColumns(table, 'Id', 'columns', en, { min: 2 })).message, /takes 2 to .* items; it has 1/);
  assert.match(refusal(() => resolveColumns(table, 'Id,City,2024', 'columns', en, { max: 2 })).message, /takes 0 to 2 items; it has 3/);
});

test('columns: a comma-separated string or an array (a title with a comma is given in an array)', () => {
  assert.deepEqual(listItems(' a , b,c '), ['a', 'b', 'c']);
  assert.deepEqual(listItems(['a, b', 2]), ['a, b', 2]);
  assert.ok(v.safeParse(columnList, ['x', 3]).success);
  assert.ok(!v.safeParse(columnList, ['x', 0]).success);
  assert.ok(!v.safeParse(columnList, Array.from({ length: 1001 }, (_, i) => i + 1)).success);
});

test('sheets: names, positions and ranges of positions, unless a sheet is named like the range', () => {
  const sheets = ['Ene', 'Feb', 'Mar', '2-3', 'Abr'];
  assert.deepEqual(resolveSheets(sheets, 'Mar, 1-2', 'sheets', en), [2, 0, 1]);
  assert.deepEqual(resolveSheets(sheets, '2-3', 'sheets', en), [3]);
  assert.match(refusal(() => resolveSheets(sheets, '4-9', 'sheets', en)).message, /"4-9" in the option "sheets" is not within the workbook's positions 1 to 5/);
  assert.match(refusal(() => resolveSheets(sheets, '3-1', 'sheets', en)).message, /not within/);
  assert.match(refusal(() => resolveSheets(sheets, 'Ene,1', 'sheets', en)).message, /same sheet twice/);
  assert.match(refusal(() => resolveSheets(sheets, 'May', 'sheets', en)).message, /names no sheet of the workbook: "May"/);
});
