// What the tools that write a workbook made from a workbook share (tools.md §2.7): the message about what is
// not carried, the warnings for cells a writer wrote otherwise than given, a result past its format's limit
// named with the count, where and the fix, and the rule that a workbook shows at least one sheet.
import type { ToolContext } from './define.ts';
import { ToolError } from './errors.ts';
import { baseNameOf } from './files.ts';
import type { OutputFile } from './output.ts';
import {
  columnLetter,
  copySheets,
  extrasOf,
  FormatError,
  openWorkbook,
  writeOds,
  writeXls,
  writeXlsxBook,
  PREVIEW_ROWS,
  writtenOf,
  type AnyCell,
  type BookIn,
  type RowBatch,
  type SheetIn,
  type Changed,
  type SourceFile,
  type TablePreview,
  type Visibility,
} from '../formats/index.ts';

/** The info every workbook converter gives, or the warning naming the kinds of parts the input holds. */
export function reportNotCarried(file: SourceFile, ctx: ToolContext, key = 'workbook_not_carried'): void {
  const kinds = extrasOf(file.bytes);
  if (kinds.length === 0) ctx.message('info', key);
  else {
    if (key !== 'workbook_not_carried') ctx.message('info', key);
    ctx.message('warning', 'workbook_parts_dropped', { name: file.name, parts: kinds.map((k) => ctx.t(`names.part-${k}`)).join(', ') });
  }
}

/** One warning per kind of change a writer made, with its count and the first cell. */
export function reportChanges(changed: readonly Changed[], ctx: ToolContext): void {
  for (const c of changed) {
    const cell = c.first.row !== undefined && c.first.column !== undefined ? `${columnLetter(c.first.column - 1)}${c.first.row}` : '';
    ctx.message('warning', `cells_changed.${c.kind}`, { count: c.count, sheet: c.first.sheet ?? '', cell });
  }
}

/**
 * Excel opens no workbook whose every sheet is hidden: the first is shown then, with an info. Gives the
 * visibility each sheet is written with.
 */
export function showOne(sheets: readonly { name: string; visibility: Visibility }[], ctx: ToolContext): Visibility[] {
  const out: Visibility[] = sheets.map((s) => s.visibility);
  if (out.length > 0 && !out.includes('visible')) {
    out[0] = 'visible';
    ctx.message('info', 'sheet_shown', { sheet: sheets[0].name });
  }
  return out;
}

/**
 * A result past a limit of its format as the caller's error: the limit, the count found, the sheet (and
 * cell), and the fix, which depends on the tool and the limit (`error-details.format-limit-<fix>`).
 */
export function limitError(err: unknown, ctx: ToolContext, fix: (unit: string) => string = () => 'split'): unknown {
  if (!(err instanceof FormatError) || err.reason !== 'format-limit') return err;
  const p = err.params;
  const unit = String(p.limit ?? '');
  const where = p.row !== undefined && p.column !== undefined ? ctx.t('names.cell-at', { cell: `${columnLetter(Number(p.column) - 1)}${p.row}` }) : '';
  return new ToolError('format_limit_exceeded', {
    messageKey: `error-details.format-limit-${fix(unit)}`,
    params: { format: String(p.format), max: Number(p.max), found: Number(p.found), unit: String(p.unit), sheet: String(p.sheet ?? ''), where },
    cause: err,
  });
}

/** The preview of a copied workbook: the first sheet's first rows, as the writer was given them. */
export type WrittenBook = { bytes: Uint8Array; preview: TablePreview | null; sheets: { name: string; rows: number }[]; changed: Changed[] };

/**
 * A whole workbook converted as it is (xls-to-xlsx, ods-to-excel, excel-to-ods): every sheet in order with its
 * visibility, widths, merges, number formats, and formulas where the target writer holds them.
 */
export async function convertWorkbook(file: SourceFile, ctx: ToolContext, to: 'xlsx' | 'ods', onSheet?: (name: string, width: number, ctx: ToolContext) => void): Promise<OutputFile> {
  const convert = async (c: ToolContext, layoutFirst: boolean) => {
    const book = openWorkbook(file, c, { hasHeader: false, cells: 'full' });
    reportNotCarried(file, c);
    const shown = showOne(book.sheets, c);
    const sheets = copySheets(
      book.sheets.map((sheet, i) => ({ sheet, visibility: shown[i] })),
      to === 'xlsx' ? { layoutAfterRows: true } : { layoutFirst },
    );
    return writeBook(to, { sheets: onSheet ? widthsTold(sheets, (name, width) => onSheet(name, width, c)) : sheets }, c);
  };
  let written: WrittenBook;
  if (to === 'ods') {
    // Sheets go to the ods writer as they are read where their reader can give their layout first. Should such a
    // read meet what only a whole read handles (a row before one already written, a part the fast reader hands to
    // its fallback), the conversion starts again reading sheets whole; its messages so far are dropped.
    const held: Parameters<ToolContext['message']>[] = [];
    try {
      written = await convert({ ...ctx, message: (...m) => void held.push(m) }, true);
      for (const m of held) ctx.message(...m);
    } catch (err) {
      if ((err instanceof FormatError && !err.repairable) || err instanceof ToolError) throw err;
      written = await convert(ctx, false);
    }
  } else written = await convert(ctx, false);
  reportChanges(written.changed, ctx);
  const rows = written.sheets.reduce((n, s) => n + s.rows, 0);
  const out = ctx.file(`${baseNameOf(file.name)}.${to}`, written);
  ctx.message('info', 'workbook_converted', { file: out.name, sheets: written.sheets.length, rows });
  return out;
}

/** The sheets, each one's width (its longest row, in sheet columns) told once its rows have gone by. */
async function* widthsTold(sheets: Iterable<SheetIn>, tell: (name: string, width: number) => void): AsyncGenerator<SheetIn> {
  for (const sheet of sheets) {
    let width = 0;
    const rows = sheet.rows;
    yield {
      ...sheet,
      rows: (async function* () {
        for await (const batch of rows) {
          if (Array.isArray(batch)) for (const r of batch) width = Math.max(width, r.length);
          // A table's batch has rows as wide as the table (and the padding before them): its first row tells.
          else if (batch.length > 0) width = Math.max(width, (batch as RowBatch<AnyCell>).slice(0, 1).rows()[0].length);
          yield batch;
        }
        tell(sheet.name, width);
      })(),
    };
  }
}

/** A workbook written in `to`, its limit errors as the caller's. */
export async function writeBook(to: 'xlsx' | 'ods' | 'xls', book: BookIn, ctx: ToolContext, fix?: (unit: string) => string): Promise<WrittenBook> {
  try {
    if (to === 'xlsx') return await writeXlsxBook(book, ctx);
    const first: { name: string; rows: AnyCell[][] } = { name: '', rows: [] };
    const seen = { sheets: watched(book.sheets, first) };
    const w = to === 'ods' ? await writeOds(seen, { t: (k) => ctx.t(k) }) : await writeXls(seen, { t: (k) => ctx.t(k) });
    const width = first.rows.reduce((n, r) => Math.max(n, r.length), 0);
    const preview = writtenOf(w.bytes, { name: first.name, header: null, width }, first.rows).preview;
    return { ...w, preview: preview && { ...preview, rowCount: w.sheets[0]?.rows ?? 0 } };
  } catch (err) {
    throw limitError(err, ctx, fix);
  }
}

/** The sheets as given, the first sheet's first rows kept in `first` as the writer pulls them. */
async function* watched(sheets: BookIn['sheets'], first: { name: string; rows: AnyCell[][] }): AsyncGenerator<SheetIn> {
  let i = 0;
  for await (const sheet of sheets) {
    if (i++ > 0) {
      yield sheet;
      continue;
    }
    first.name = sheet.name;
    const rows = sheet.rows;
    yield {
      ...sheet,
      rows: (async function* () {
        for await (const batch of rows) {
          if (first.rows.length < PREVIEW_ROWS) for (const r of rowsOf(batch).slice(0, PREVIEW_ROWS - first.rows.length)) first.rows.push([...r]);
          yield batch;
        }
      })(),
    };
  }
}

const rowsOf = (batch: RowBatch<AnyCell> | readonly (readonly AnyCell[])[]): readonly (readonly AnyCell[])[] => (Array.isArray(batch) ? batch : (batch as RowBatch<AnyCell>).slice(0, PREVIEW_ROWS).rows());
