// The benchmark's inputs, generated from a seeded PRNG so every run (and every machine) reads the same bytes,
// and written to bench/out/inputs/ so that the service and every peer read the very same file.
//
// Which .xlsx the peers and the service read: one written by SheetJS with a shared-string table, as Excel and
// LibreOffice write them, because that is what users upload. Our own writer uses inline strings (an
// unusual layout that some readers handle on a slower path), so one extra task reads that file too, to check
// that no reader is favoured by the layout. The .xls (at most 65,535 rows) is written by Gnumeric's ssconvert.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as XLSX from 'xlsx';
import { createContext } from '../tools/core/execute.ts';
import type { Cell, Row } from '../tools/formats/model.ts';
import { tableOf } from '../tools/formats/batch.ts';
import { columnInfo, DIALECT, writeHtml, writeSql, writeXml } from '../tools/formats/index.ts';
import { writeXlsx } from '../tools/formats/xlsx/write.ts';

export const TITLES = ['id', 'cliente', 'fecha', 'importe', 'pagado', 'email', 'provincia', 'comentario', 'unidades', 'nota'];
/** The lookup table of merge-by-key (clave.csv, clave.xlsx), keyed on medio's `id`. */
export const LOOKUP_TITLES = ['id', 'segmento', 'descuento'];
/** The 20-value category that split-by-column splits on. */
export const CATEGORY = 'provincia';
export const PROVINCES = ['Madrid', 'Barcelona', 'Valencia', 'Sevilla', 'Zaragoza', 'Málaga', 'Murcia', 'Palma', 'Las Palmas', 'Bilbao', 'Alicante', 'Córdoba', 'Valladolid', 'Vigo', 'Gijón', 'A Coruña', 'Granada', 'Vitoria', 'Elche', 'Oviedo'];
const FIRST = ['José', 'María', 'Begoña', 'Íñigo', 'Agustín', 'Lucía', 'Ramón', 'Sofía', 'Óscar', 'Nuria'];
const LAST = ['Muñoz', 'Pérez', 'Ibáñez', 'Gómez', 'Martín', 'Núñez', 'Sánchez', 'Álvarez', 'Castaño', 'Peña'];
const COMMENTS = [
  (n: number) => `Pedido ${n}, entrega "urgente"`,
  () => 'Revisar factura, el cliente dice: "no llegó"',
  () => 'Sin incidencias',
  (n: number) => `Llamar antes, horario 9-14, ext. ${n % 900}`,
  () => 'Devolución parcial; embalaje "dañado", caja 2 de 3',
  () => 'Pago en dos plazos',
];
const NOTES = ['Ver anexo', 'Cliente nuevo', 'Descuento 5%', 'Factura rectificativa'];
/** .xls (BIFF8) holds at most 65,536 rows, titles included. */
export const XLS_MAX_DATA_ROWS = 65_535;

/** mulberry32: a small, well-known seeded PRNG (uniform in [0, 1)). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ascii = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
const DAY = 86_400_000;
const START = Date.UTC(2020, 0, 1);

/** `n` rows of the 10 mixed columns: ints, accented text, dates, decimals, booleans, e-mails, the 20-value
 * category, free text with commas and quotes, and empty cells (some e-mails, some amounts, most notes). */
export function mediumRows(n: number, seed = 20261123): Row[] {
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const rows: Row[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const first = pick(FIRST);
    const last = pick(LAST);
    const amount = Math.round((r() * 20_000 - 2_000) * 100) / 100;
    rows[i] = [
      i + 1,
      `${first} ${last}`,
      new Date(START + Math.floor(r() * 2_000) * DAY),
      r() < 0.03 ? null : amount,
      r() < 0.5,
      r() < 0.05 ? null : `${ascii(first)}.${ascii(last)}${Math.floor(r() * 1000)}@ejemplo.es`,
      pick(PROVINCES),
      pick(COMMENTS)(i + 1),
      1 + Math.floor(r() * 500),
      r() < 0.7 ? null : pick(NOTES),
    ];
  }
  return rows;
}

/** Rows of the 25 MB CSV of the huge tasks (just under the default MAX_INPUT_MB). */
export const LIMIT_ROWS = 205_000;

/** The narrow table of the huge task: header + 999,999 rows × 2 columns = 2,000,000 cells, the default
 * MAX_CELLS, and about 17 MB of CSV, under the default 25 MB input limit. */
export function hugeRows(n = 999_999): Row[] {
  const r = prng(7);
  const rows: Row[] = new Array(n);
  for (let i = 0; i < n; i++) rows[i] = [i + 1, Math.round(r() * 1_000_000) / 100];
  return rows;
}

function csvField(c: Cell): string {
  if (c === null) return '';
  if (c instanceof Date) return c.toISOString().slice(0, 10);
  const s = String(c);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** RFC 4180 CSV, UTF-8 without BOM, LF line ends, ISO dates, `.` decimals, true/false. */
/** The rows as one HTML table (the input LibreOffice Writer converts to .docx). */
function htmlTable(titles: string[], rows: Row[]): Uint8Array {
  const esc = (v: unknown) => String(v ?? '').replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const row = (cells: unknown[], tag: string) => `<tr>${cells.map((c) => `<${tag}>${esc(c instanceof Date ? c.toISOString().slice(0, 10) : c)}</${tag}>`).join('')}</tr>`;
  const body = rows.map((r) => row(r, 'td')).join('\n');
  return new TextEncoder().encode(`<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><table><thead>${row(titles, 'th')}</thead><tbody>${body}</tbody></table></body></html>`);
}

export function toCsv(titles: string[], rows: Row[]): Uint8Array {
  const lines = [titles.join(',')];
  for (const row of rows) lines.push(row.map(csvField).join(','));
  return Buffer.from(lines.join('\n') + '\n', 'utf8');
}

/** Dates as serial numbers with a date format, independent of the machine's time zone. */
function sheetjsCell(c: Cell): XLSX.CellObject | null {
  if (c === null) return null;
  if (c instanceof Date) return { t: 'n', v: c.getTime() / DAY + 25_569, z: 'yyyy-mm-dd' };
  if (typeof c === 'number') return { t: 'n', v: c };
  if (typeof c === 'boolean') return { t: 'b', v: c };
  return { t: 's', v: c };
}

/** A workbook written by SheetJS (a third-party writer): shared strings, like Excel's own files. */
export function sheetjsWorkbook(titles: string[], rows: Row[], bookType: 'xlsx' | 'xls' | 'ods'): Uint8Array {
  const ws: XLSX.WorkSheet = {};
  const all = [titles as Cell[], ...rows];
  all.forEach((row, r) =>
    row.forEach((c, col) => {
      const cell = sheetjsCell(c);
      if (cell) ws[XLSX.utils.encode_cell({ r, c: col })] = cell;
    }),
  );
  ws['!ref'] = XLSX.utils.encode_range({ s: { r: 0, c: 0 }, e: { r: all.length - 1, c: titles.length - 1 } });
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, ws, 'Datos');
  return XLSX.write(wb, { type: 'buffer', bookType, bookSST: true, compression: true });
}

/** A workbook written by the service's own writer (inline strings). */
export function serviceWorkbook(titles: string[], rows: Row[]): Uint8Array {
  return writeXlsx([{ name: 'Datos', header: titles, rows }], createContext('es', new AbortController().signal, []));
}

/**
 * The .xls and .ods inputs, written by Gnumeric's ssconvert from a SheetJS .xlsx (seconds), so that no reader
 * reads its own writer's output; SheetJS's own BIFF8 and ODS writers take minutes at these sizes, so they are
 * only the fallback when ssconvert is not installed.
 */
function gnumericWorkbook(dir: string, rows: Row[], ext: 'xls' | 'ods'): Uint8Array {
  const source = join(dir, `${ext}-fuente.xlsx`);
  const target = join(dir, `${ext}-ssconvert.${ext}`);
  try {
    writeFileSync(source, sheetjsWorkbook(TITLES, rows, 'xlsx'));
    execFileSync('ssconvert', ['-T', ext === 'xls' ? 'Gnumeric_Excel:excel_biff8' : 'Gnumeric_OpenCalc:openoffice', source, target], { stdio: 'ignore', timeout: 300_000 });
    return readFileSync(target);
  } catch {
    console.log(`  ssconvert is not installed: the .${ext} input is written by SheetJS (slow: minutes)`);
    return sheetjsWorkbook(TITLES, rows, ext);
  } finally {
    rmSync(source, { force: true });
    rmSync(target, { force: true });
  }
}

export interface Inputs {
  dir: string;
  rows: number;
  /** name → absolute path */
  path: (name: string) => string;
  /** name → size in bytes */
  size: Record<string, number>;
}

/** The rows as excel-to-sql writes them in the standard dialect (CREATE TABLE, INSERTs of 100 rows): what sql-to-excel reads. */
function sqlScript(titles: string[], rows: Row[]): Uint8Array {
  const types = titles.map((_, i) => columnInfo(rows, i));
  return writeSql(rows, { dialect: DIALECT.standard, table: 'datos', columns: titles, types, createTable: true, batchSize: 100 }).bytes;
}

/** Writes every input of the run; the huge ones only when asked (BENCH_HUGE=1). */
export function writeInputs(dir: string, rows: number, o: { huge: boolean; parts: number; pdfRows: number }): Inputs {
  mkdirSync(dir, { recursive: true });
  const size: Record<string, number> = {};
  const put = (name: string, bytes: Uint8Array) => {
    writeFileSync(join(dir, name), bytes);
    size[name] = bytes.length;
  };
  const data = mediumRows(rows);
  put('medio.csv', toCsv(TITLES, data));
  put('medio.xlsx', sheetjsWorkbook(TITLES, data, 'xlsx'));
  put('medio.sql', sqlScript(TITLES, data));
  put('medio-servicio.xlsx', serviceWorkbook(TITLES, data));
  put('medio.xls', gnumericWorkbook(dir, data.slice(0, XLS_MAX_DATA_ROWS), 'xls'));
  put('medio.ods', gnumericWorkbook(dir, data, 'ods'));
  // xlsx-to-xls: as many rows as a BIFF8 sheet holds (65,536 with the titles).
  put('medio-xls.xlsx', sheetjsWorkbook(TITLES, data.slice(0, XLS_MAX_DATA_ROWS), 'xlsx'));
  put('pdf.xlsx', sheetjsWorkbook(TITLES, data.slice(0, o.pdfRows), 'xlsx'));
  // What excel-to-xml and excel-to-html write (a whole page), read back by xml-to-excel and html-to-excel.
  const table = () => tableOf({ name: 'medio', header: TITLES, rows: data });
  put('medio.xml', writeXml(table(), { root: 'datos', row: 'fila', names: TITLES, pretty: true }).bytes);
  put('medio.html', writeHtml(table(), { page: true, title: 'medio', lang: 'es', classes: '', styled: true }).bytes);
  put('docx.html', htmlTable(TITLES, data.slice(0, o.pdfRows)));
  const per = Math.ceil(rows / o.parts);
  for (let i = 0; i < o.parts; i++) {
    const part = data.slice(i * per, (i + 1) * per);
    put(`parte-${i + 1}.csv`, toCsv(TITLES, part));
    put(`parte-${i + 1}.xlsx`, sheetjsWorkbook(TITLES, part, 'xlsx'));
  }
  // merge-by-key's lookup table: every id of medio once, in another order, with two columns to bring.
  const lookup = data.map((row, i) => data[(i * 7919) % data.length][0]).map((id) => [id, `S${Number(id) % 13}`, (Number(id) % 50) / 100] as Row);
  put('clave.csv', toCsv(LOOKUP_TITLES, lookup));
  put('clave.xlsx', sheetjsWorkbook(LOOKUP_TITLES, lookup, 'xlsx'));
  // About 10 KB of CSV: the small file of the HTTP load.
  put('pequeno.csv', toCsv(TITLES, mediumRows(90, 99)));
  if (o.huge) {
    const huge = hugeRows();
    put('enorme.csv', toCsv(['id', 'valor'], huge));
    put('enorme.xlsx', serviceWorkbook(['id', 'valor'], huge));
    // The issue's other bound: an upload as big as the default input limit (25 MB) converts within the
    // default job heap. 205,000 mixed rows are 25.5 MB of CSV and about 1.83 million cells with a value.
    put('limite.csv', toCsv(TITLES, mediumRows(LIMIT_ROWS, 25)));
  }
  return { dir, rows, path: (name) => join(dir, name), size };
}
