// merge-by-key streams the main table: each batch the reader hands on is joined and given to the writer before
// the next is read, so at most one batch of main rows is held; the lookup table is held as its key and brought
// columns, never as whole rows. Observed through the readers' and writers' own methods, never through time or
// memory figures. A main sheet whose read starts again halfway (book.ts Restart) still gives the join once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import tool from '../../../tools/merge-split/merge-by-key.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { readXlsx } from '../../helpers/read-xlsx.ts';
import { textOf } from '../../helpers/typed-titles.ts';
import { LaidOutRecords, RecordBatch, RecordTable } from '../../../tools/formats/csv/book.ts';
import { CsvWriter } from '../../../tools/formats/csv/write.ts';
import { XlsxReader } from '../../../tools/formats/xlsx/read.ts';
import { XlsxWriter } from '../../../tools/formats/xlsx/write.ts';
import { BATCH_ROWS, PREVIEW_ROWS, type RowBatch } from '../../../tools/formats/model.ts';

/** Replaces `proto[name]` while `f` runs, with `wrap(original)`. */
async function patched<T>(patches: [object, PropertyKey, (orig: (...a: unknown[]) => unknown) => (...a: unknown[]) => unknown][], f: () => Promise<T>): Promise<T> {
  const saved = patches.map(([proto, name]) => [proto, name, (proto as Record<PropertyKey, unknown>)[name]] as const);
  for (const [proto, name, wrap] of patches) (proto as Record<PropertyKey, unknown>)[name] = wrap((proto as Record<PropertyKey, (...a: unknown[]) => unknown>)[name]);
  try {
    return await f();
  } finally {
    for (const [proto, name, orig] of saved) (proto as Record<PropertyKey, unknown>)[name] = orig;
  }
}

/** Checks that `events` (main batches read, result batches written) alternate: one batch read, then written. */
function assertAlternate(events: { kind: 'read' | 'write'; rows: number }[], rows: number) {
  let held = 0;
  let most = 0;
  let written = 0;
  for (const e of events) {
    if (e.kind === 'read') held += e.rows;
    else {
      written += e.rows;
      held -= e.rows;
    }
    most = Math.max(most, held);
    assert.ok(held >= 0 && held <= BATCH_ROWS, `main rows read and not yet written: ${held}`);
  }
  assert.equal(written, rows);
  assert.ok(most > 0);
  assert.deepEqual(
    events.map((e) => e.kind),
    events.map((_, i) => (i % 2 === 0 ? 'read' : 'write')),
  );
}

test('merge-by-key streams a main CSV: a batch read, a batch written (records copied as bytes); no table made whole', async () => {
  const n = 6000;
  const main = inputFile('m.csv', ['id,v', ...Array.from({ length: n }, (_, i) => `${i % 400},v${i}`)].join('\n'));
  const lookup = { ...inputFile('l.csv', ['id,w', ...Array.from({ length: 300 }, (_, i) => `${i},w${i}`)].join('\n')), field: 'lookup-file' };
  const events: { kind: 'read' | 'write'; rows: number }[] = [];
  const lookupBatches: number[] = [];
  const made: string[] = [];
  let viaRows = 0;
  const out = await patched(
    [
      [
        RecordTable.prototype,
        Symbol.iterator,
        (orig) =>
          function* (this: RecordTable) {
            for (const batch of orig.call(this) as Iterable<RowBatch>) {
              if (this.name === 'm') events.push({ kind: 'read', rows: batch.length });
              else lookupBatches.push(batch.length);
              yield batch;
            }
          },
      ],
      [
        CsvWriter.prototype,
        'laidOut',
        (orig) =>
          function (this: CsvWriter, batch: unknown) {
            events.push({ kind: 'write', rows: (batch as LaidOutRecords).length });
            return orig.call(this, batch);
          },
      ],
      [CsvWriter.prototype, 'rows', (orig) => function (this: CsvWriter, ...a: unknown[]) { viaRows += (a[0] as unknown[]).length; return orig.apply(this, a); }],
      [RecordTable.prototype, 'rows', (orig) => function (this: RecordTable, ...a: unknown[]) { made.push(`RecordTable.rows ${this.name}`); return orig.apply(this, a); }],
      [RecordBatch.prototype, 'rows', (orig) => function (this: RecordBatch, ...a: unknown[]) { made.push('RecordBatch.rows'); return orig.apply(this, a); }],
      [LaidOutRecords.prototype, 'rows', (orig) => function (this: LaidOutRecords, ...a: unknown[]) { made.push(`LaidOutRecords.rows ${this.length}`); return orig.apply(this, a); }],
    ],
    () => runTool(tool, [main, lookup], { key: 'id' }),
  );
  assert.equal(events.filter((e) => e.kind === 'read').length, Math.ceil(n / BATCH_ROWS));
  assertAlternate(events, n);
  assert.deepEqual(lookupBatches, [300]);
  // Neither table is made into rows (the previews make their 20 rows from the first batch written); the writer
  // writes only the title row from cells, the records as their bytes.
  assert.deepEqual(made.filter((m) => m !== `LaidOutRecords.rows ${PREVIEW_ROWS}`), []);
  assert.equal(viaRows, 1);
  const lines = textOf(out.files[0].bytes).replace(/^\uFEFF/, '').split('\r\n');
  assert.equal(lines[0], 'id,v,w');
  assert.equal(lines[n], `${(n - 1) % 400},v${n - 1},${(n - 1) % 400 < 300 ? `w${(n - 1) % 400}` : ''}`);
});

async function book(sheets: Record<string, unknown[][]>): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const ws = wb.addWorksheet(name);
    for (const [r, row] of rows.entries()) for (const [c, v] of row.entries()) if (v !== null && v !== undefined) ws.getCell(r + 1, c + 1).value = v as ExcelJS.CellValue;
  }
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

/** Logs the batches of the main sheet `Datos` as read (XlsxReader.stream) and as written (XlsxWriter), and whole reads. */
function xlsxSpies(events: { kind: 'read' | 'write'; rows: number }[], whole: string[]) {
  return [
    [
      XlsxReader.prototype,
      'stream',
      (orig: (...a: unknown[]) => unknown) =>
        function (this: XlsxReader, i: unknown, ...rest: unknown[]) {
          const s = orig.call(this, i, ...rest) as Iterable<RowBatch> & { name: string };
          const inner = s[Symbol.iterator].bind(s);
          s[Symbol.iterator] = function* () {
            for (const batch of { [Symbol.iterator]: inner }) {
              if (s.name === 'Datos') events.push({ kind: 'read', rows: batch.length });
              yield batch;
            }
          };
          return s;
        },
    ],
    [
      XlsxReader.prototype,
      'table',
      (orig: (...a: unknown[]) => unknown) =>
        function (this: XlsxReader, i: number, ...rest: unknown[]) {
          whole.push(this.sheets[i].name);
          return orig.call(this, i, ...rest);
        },
    ],
    [
      XlsxWriter.prototype,
      'sheet',
      (orig: (...a: unknown[]) => unknown) =>
        function (this: XlsxWriter, head: { name: string }, ...rest: unknown[]) {
          const sheet = orig.call(this, head, ...rest) as { write(b: RowBatch | unknown[][]): void };
          if (head.name !== 'Datos') return sheet;
          return {
            write(b: RowBatch | unknown[][]) {
              events.push({ kind: 'write', rows: b.length });
              sheet.write(b);
            },
          };
        },
    ],
  ] as [object, PropertyKey, (orig: (...a: unknown[]) => unknown) => (...a: unknown[]) => unknown][];
}

test('merge-by-key streams a main xlsx sheet into the xlsx result, its other sheet kept; the sheet is never read whole', async () => {
  const n = 3000;
  const main = inputFile('m.xlsx', await book({ Datos: [['K', 'V'], ...Array.from({ length: n }, (_, i) => [`k${i % 50}`, i])], Notas: [['libre'], [42]] }));
  const lookup = { ...inputFile('l.csv', ['K,W', ...Array.from({ length: 40 }, (_, i) => `k${i},${i * 1.5}`)].join('\n')), field: 'lookup-file' };
  const events: { kind: 'read' | 'write'; rows: number }[] = [];
  const whole: string[] = [];
  const out = await patched(xlsxSpies(events, whole), () => runTool(tool, [main, lookup], { key: 'K' }));
  // Only the other sheet, copied unchanged, is read whole (table/edit.ts: its read could not start again).
  assert.deepEqual(whole, ['Notas']);
  assertAlternate(events, n);
  const sheets = await readXlsx(out.files[0].bytes);
  assert.deepEqual(
    sheets.map((s) => s.name),
    ['Datos', 'Notas'],
  );
  assert.equal(sheets[0].rows.length, n + 1);
  assert.deepEqual(sheets[0].rows[n], [`k${(n - 1) % 50}`, n - 1, null]);
  assert.deepEqual(sheets[0].rows[41], ['k40', 40, null]);
  assert.deepEqual(sheets[0].rows[40], ['k39', 39, 39 * 1.5]);
  assert.deepEqual(sheets[1].rows, [['libre'], [42]]);
});

test('merge-by-key: a main sheet whose streamed read starts again halfway (a cell left of the columns decided) gives the join once', async () => {
  const n = 1400;
  // Columns B:C for the first rows read, then a cell in column A: the streamed read (which handed rows on) is
  // replaced by a whole read, and the result must hold every row once, three columns wide.
  const rows: unknown[][] = [[null, 'K', 'V'], ...Array.from({ length: n }, (_, i) => [null, `k${i % 30}`, i]), ['izq', 'k3', 'fin']];
  const main = inputFile('m.xlsx', await book({ Datos: rows, Notas: [['libre'], [42]] }));
  const lookup = { ...inputFile('l.csv', ['K,W', ...Array.from({ length: 20 }, (_, i) => `k${i},w${i}`)].join('\n')), field: 'lookup-file' };
  const events: { kind: 'read' | 'write'; rows: number }[] = [];
  const whole: string[] = [];
  const out = await patched(xlsxSpies(events, whole), () => runTool(tool, [main, lookup], { key: 'K', language: 'en' }));
  // The restart happened after rows had been written: the second read is the whole sheet's.
  assert.deepEqual(whole, ['Datos', 'Notas']);
  assert.ok(events.some((e) => e.kind === 'write'));
  const sheets = await readXlsx(out.files[0].bytes);
  assert.deepEqual(
    sheets.map((s) => s.name),
    ['Datos', 'Notas'],
  );
  const got = sheets[0].rows;
  assert.equal(got.length, n + 2);
  assert.deepEqual(got[0].slice(1), ['K', 'V', 'W']);
  for (let i = 0; i < n; i++) assert.deepEqual(got[i + 1], [null, `k${i % 30}`, i, i % 30 < 20 ? `w${i % 30}` : null], `row ${i + 2}`);
  assert.deepEqual(got[n + 1], ['izq', 'k3', 'fin', 'w3']);
  assert.deepEqual(sheets[1].rows, [['libre'], [42]]);
  const done = out.messages.filter((m) => m.text.includes('row(s) read'));
  assert.equal(done.length, 1);
  assert.ok(done[0].text.startsWith(`${n + 1} row(s) read`), done[0].text);
});

test('merge-by-key: a lookup file larger than the main file keeps only the brought cells of the rows the main keys match', async () => {
  const main = inputFile('m.csv', ['id,v', ...Array.from({ length: 100 }, (_, i) => `k${i * 37},v${i}`)].join('\n'));
  const lookup = { ...inputFile('l.csv', ['id,w', ...Array.from({ length: 5000 }, (_, i) => `k${i},w${i}`), 'k37,again'].join('\n')), field: 'lookup-file' };
  const brought = async (join: string, matches: string) => {
    let cells = 0;
    const out = await patched(
      [
        [
          RecordBatch.prototype,
          'column',
          (orig) =>
            function (this: RecordBatch, col: unknown) {
              const got = orig.call(this, col) as unknown[];
              if (this.src.name === 'l' && col === 1) cells += got.length;
              return got;
            },
        ],
      ],
      () => runTool(tool, [main, lookup], { key: 'id', 'join-type': join, 'multiple-matches': matches, language: 'en' }),
    );
    return { cells, lines: textOf(out.files[0].bytes).replace(/^\uFEFF/, '').split('\r\n'), texts: out.messages.map((m) => m.text) };
  };
  const first = await brought('left', 'first');
  // 100 main keys, 5001 lookup rows: 100 rows' cells made and held (matched keys below 5000: k0, k37 … k3663).
  assert.equal(first.cells, 100);
  assert.equal(first.lines[2], 'k37,v1,w37');
  assert.ok(first.texts.some((t) => t.startsWith('1 key(s) repeat') && t.includes('«k37»')), first.texts.join('\n'));
  const all = await brought('inner', 'all');
  assert.equal(all.cells, 101);
  assert.deepEqual(all.lines.slice(2, 4), ['k37,v1,w37', 'k37,v1,again']);
  // `full` appends every lookup row no main key matched: all of them are kept.
  const full = await brought('full', 'first');
  assert.equal(full.cells, 5001);
  // Titles, the 100 main rows, the 4900 lookup rows not matched (`k37,again` matched), and '' after the last CRLF.
  assert.equal(full.lines.length, 1 + 100 + 4900 + 1);
  assert.equal(full.lines.at(-2), 'k4999,,w4999');
});

test('merge-by-key: an `all` result past the xlsx row limit is 413 format_limit_exceeded, naming no input file, while the main sheet streams', async () => {
  // 1,050 main rows × 1,000 lookup rows of one key: 1,050,000 rows, past the 1,048,576 of a sheet.
  const main = inputFile('m.xlsx', await book({ Datos: [['K', 'V', 'Nota'], ...Array.from({ length: 1050 }, (_, i) => ['a', i, `nota ${i}`])] }));
  const lookup = { ...inputFile('l.xlsx', await book({ L: [['K', 'W'], ...Array.from({ length: 1000 }, (_, i) => ['a', i])] })), field: 'lookup-file' };
  assert.ok(main.bytes.length > lookup.bytes.length, 'the main file is the larger: it streams');
  const err = await runTool(tool, [main, lookup], { key: 'K', 'multiple-matches': 'all' }).then(
    () => assert.fail('no error'),
    (e: unknown) => e as { code: string; detail?: { option?: string; params?: Record<string, unknown> } },
  );
  assert.equal(err.code, 'format_limit_exceeded');
  assert.equal(err.detail?.option, undefined);
  assert.equal(err.detail?.params?.name, undefined);
});

test('merge-by-key: a lookup sheet whose streamed read starts again halfway is indexed once, from the whole read', async () => {
  const n = 1400;
  const rows: unknown[][] = [[null, 'K', 'W'], ...Array.from({ length: n }, (_, i) => [null, `k${i}`, `w${i}`]), ['izq', 'k5', 'otra']];
  const lookup = { ...inputFile('l.xlsx', await book({ Tabla: rows })), field: 'lookup-file' };
  const main = inputFile('m.csv', ['K,V', 'k5,a', 'k1399,b', 'k1400,c'].join('\n'));
  const whole: string[] = [];
  const events: { kind: 'read' | 'write'; rows: number }[] = [];
  const out = await patched(xlsxSpies(events, whole), () => runTool(tool, [main, lookup], { key: 'K', columns: 'W', language: 'en' }));
  assert.deepEqual(whole, ['Tabla']);
  const lines = textOf(out.files[0].bytes).replace(/^\uFEFF/, '').split('\r\n');
  assert.deepEqual(lines, ['K,V,W', 'k5,a,w5', 'k1399,b,w1399', 'k1400,c,', '']);
  const texts = out.messages.map((m) => m.text);
  assert.equal(texts.filter((t) => t.startsWith('1 key(s) repeat in «l.xlsx» (first: «k5»)')).length, 1, texts.join('\n'));
});
