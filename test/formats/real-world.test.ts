// The real-world corpus (issue 16; format in coord/SESSION4.md): every file of test/fixtures/real-world/, written
// by the program that writes such files in the wild, read through openWorkbook (`cells: 'full'` for workbooks)
// and compared cell for cell with the `.json` beside it, which holds what an independent reader (openpyxl, xlrd,
// LibreOffice, the writer's own rows) found. A second test reads the corpus through the fast readers and through
// SheetJS and reports, per file, which reader read it and why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mapFormatError } from '../../tools/core/format-errors.ts';
import type { Book } from '../../tools/formats/book.ts';
import { CellError, FullCell, openWorkbook, type AnyCell, type Workbook } from '../../tools/formats/index.ts';
import { contextOf } from '../helpers/read-tables.ts';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'real-world');
const WORKBOOKS = /\.(xlsx|xlsm|xltx|xltm|xls|ods)$/i;

interface Expected {
  writer: string;
  why: string;
  reader?: string;
  sheets?: { name: string; rows: unknown[][] }[];
  expect?: { error: string };
  messages?: string[];
}

const corpus = readdirSync(DIR)
  .filter((f) => !f.endsWith('.json') && f !== 'make' && !f.startsWith('.'))
  .sort();

function expectedOf(file: string): Expected {
  return JSON.parse(readFileSync(join(DIR, `${file}.json`), 'utf8')) as Expected;
}

/** A cell as the corpus writes it: dates as ISO text (date alone at midnight), errors as their text. */
function plainCell(c: AnyCell): unknown {
  const v = c instanceof FullCell ? c.value : c;
  if (v instanceof CellError) return v.text;
  if (v instanceof Date) {
    const iso = v.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19);
  }
  return v;
}

const show = (v: unknown) => (v === undefined ? 'nothing' : JSON.stringify(v));

/** A1-style address of a 0-based cell. */
function address(r: number, c: number): string {
  let s = '';
  for (let n = c + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return `${s}${r + 1}`;
}

interface Read {
  sheets: { name: string; rows: unknown[][] }[];
  messages: string[];
  book: Workbook<AnyCell>;
}

function read(file: string, reader?: 'sheetjs', full = WORKBOOKS.test(file)): Read {
  const messages: string[] = [];
  const ctx = contextOf({ report: (_level, key) => void messages.push(key) });
  const f = { name: file, bytes: new Uint8Array(readFileSync(join(DIR, file))) };
  const book = (full ? openWorkbook(f, ctx, { hasHeader: false, cells: 'full', reader }) : openWorkbook(f, ctx, { hasHeader: false, reader })) as Workbook<AnyCell>;
  const sheets = book.sheets.map((s) => ({ name: s.name, rows: s.table().rows().map((r) => r.map(plainCell)) }));
  return { sheets, messages, book };
}

/** Every difference between the expected sheets and the read ones, one line each (at most 20). */
function differences(file: string, want: NonNullable<Expected['sheets']>, got: Read['sheets']): string[] {
  const out: string[] = [];
  if (got.length !== want.length) out.push(`${file}: ${want.length} sheet(s) expected (${want.map((s) => s.name).join(', ')}), got ${got.length} (${got.map((s) => s.name).join(', ')})`);
  for (let i = 0; i < Math.min(want.length, got.length); i++) {
    const w = want[i];
    const g = got[i];
    // A CSV's one sheet is named after the file: only workbooks' sheet names are compared.
    if (WORKBOOKS.test(file) && w.name !== g.name) out.push(`${file}: sheet ${i + 1} expected "${w.name}", got "${g.name}"`);
    const rows = Math.max(w.rows.length, g.rows.length);
    for (let r = 0; r < rows; r++) {
      const wr = w.rows[r] ?? [];
      const gr = g.rows[r] ?? [];
      for (let c = 0; c < Math.max(wr.length, gr.length); c++) {
        const want1 = wr[c] ?? null;
        const got1 = gr[c] ?? null;
        if (!Object.is(want1, got1) && JSON.stringify(want1) !== JSON.stringify(got1)) out.push(`${file}, sheet "${w.name}", ${address(r, c)}: expected ${show(want1)}, got ${show(got1)}`);
      }
    }
  }
  return out.slice(0, 20);
}

/**
 * Differences known and not fixed yet, each with why: the test fails when one no longer occurs (remove it then),
 * so the list only shrinks. Anything else that differs fails.
 */
// Differences the corpus shows that are understood and not yet fixed, each with why; empty now that full
// reads of .xlsx go through the fast reader, which keeps CR LF (SheetJS turned it into LF).
const KNOWN = new Map<string, string>([]);

test('the real-world corpus is read cell for cell as the independent readers read it', () => {
  assert.ok(corpus.length > 0, 'no file in test/fixtures/real-world');
  const failures: string[] = [];
  for (const file of corpus) {
    let want: Expected;
    try {
      want = expectedOf(file);
    } catch (err) {
      failures.push(`${file}: no readable ${file}.json beside it (${(err as Error).message})`);
      continue;
    }
    let got: Read;
    try {
      got = read(file);
    } catch (err) {
      const code = (mapFormatError(err, 'file') as { code?: string }).code ?? String(err);
      if (want.expect?.error === code) continue;
      failures.push(`${file}: ${want.expect ? `refused with ${code}, expected ${want.expect.error}` : `refused with ${code} (${(err as Error).message}), expected its cells`}`);
      continue;
    }
    if (want.expect?.error) {
      failures.push(`${file}: read (${got.sheets.length} sheet(s)), expected to be refused with ${want.expect.error}`);
      continue;
    }
    failures.push(...differences(file, want.sheets ?? [], got.sheets));
    for (const m of want.messages ?? []) if (!got.messages.includes(m)) failures.push(`${file}: message "${m}" expected, got ${show(got.messages)}`);
  }
  const unknown = failures.filter((f) => !KNOWN.has(f));
  const gone = [...KNOWN.keys()].filter((k) => !failures.includes(k));
  assert.deepEqual(unknown, [], `\n${unknown.join('\n')}`);
  assert.deepEqual(gone, [], 'known differences that no longer occur: remove them from KNOWN');
});

type Outcome = { verdict: string; right: boolean | null };

/** How a path read the file: by which reader (and why it fell back), or refused with which code; right when it matches the .json. */
function outcome(file: string, want: Expected, reader?: 'sheetjs'): Outcome {
  try {
    // Values only, so each format's fast reader is the one tried (a full read sends .xls sheets with formulas to SheetJS).
    const got = read(file, reader, false);
    const book = got.book as unknown as Book;
    const by = reader === 'sheetjs' ? 'sheetjs' : book.readBy === 'sheetjs' ? `fell back to sheetjs because ${book.fellBack ?? 'its format has no fast reader'}` : `fast (${book.format})`;
    return { verdict: by, right: want.expect ? false : differences(file, want.sheets ?? [], got.sheets).length === 0 };
  } catch (err) {
    const code = (mapFormatError(err, 'file') as { code?: string }).code ?? 'crash';
    return { verdict: `refused: ${code} (${(err as Error).message.slice(0, 60)})`, right: want.expect ? want.expect.error === code : false };
  }
}

test('the corpus through the fast readers and through SheetJS: which reader read each file, and why', (t) => {
  const lines: string[] = [];
  const wrongWhereFastRight: string[] = [];
  for (const file of corpus) {
    let want: Expected;
    try {
      want = expectedOf(file);
    } catch {
      continue;
    }
    const fast = outcome(file, want);
    // SheetJS reads workbooks only: text formats have no fallback.
    const sheetjs = WORKBOOKS.test(file) ? outcome(file, want, 'sheetjs') : { verdict: '-', right: null };
    const mark = (o: Outcome) => (o.right === null ? '' : o.right ? ' ✓' : ' ✗');
    lines.push(`${file.padEnd(28)} | ${(fast.verdict + mark(fast)).padEnd(70)} | ${sheetjs.verdict}${mark(sheetjs)}`);
    // The path a user gets never reads a file wrong that it would read right by the fast reader's own account:
    // a file the fast path reads right is one every tool reads right; a wrong one is a defect to fix, named here.
    if (fast.right === false && sheetjs.right === true) wrongWhereFastRight.push(`${file}: SheetJS reads it right, the fast path does not (${fast.verdict})`);
  }
  t.diagnostic(`${'file'.padEnd(28)} | ${'fast path (✓ = as the independent reader)'.padEnd(70)} | SheetJS alone`);
  for (const line of lines) t.diagnostic(line);
  assert.deepEqual(wrongWhereFastRight, []);
});
