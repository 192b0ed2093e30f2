// A table as a SQL script (excel-to-sql): CREATE TABLE with the column types given, then INSERT statements of
// `batchSize` rows each. Names, types and literals per dialect: names.ts, column-types.ts, dialects.ts.
// Statements end with `;` and lines with LF; the script is UTF-8 without BOM. Text loses U+0000 (removed.ts).
import { writtenOf } from '../batch.ts';
import { columnLetter, type Row, type Written } from '../model.ts';
import { nulFilter } from '../removed.ts';
import type { ResultBudget } from '../budget.ts';
import { joinBytes } from '../util/bytes.ts';
import type { ColumnInfo } from './column-types.ts';
import { literal, typeNames, type Dialect } from './dialects.ts';

export interface SqlOptions {
  dialect: Dialect;
  /** The table's name, valid for the dialect (names.ts tableName). */
  table: string;
  /** The column names, valid and unique (names.ts columnNames). */
  columns: string[];
  /** Each column's type, from its values (column-types.ts columnInfo). */
  types: ColumnInfo[];
  createTable: boolean;
  batchSize: number;
  /** The run's result budget (resultBudget(ctx)): the script stops when its bytes pass it. */
  budget?: ResultBudget | null;
}

/** The script of a table's rows, and how many INSERT statements it holds. */
export function writeSql(rows: readonly Row[], o: SqlOptions): Written & { statements: number } {
  const { dialect: d, table: name, columns, types: infos } = o;
  // The script is encoded as it is written, in pieces of about 64 KB joined once: holding every statement as
  // a string until the end cost about four times the script (lines, their join, the encoded copy).
  const chunks: Uint8Array[] = [];
  let out = '';
  let blocks = 0;
  /** One block of lines; blocks are separated by an empty line. */
  const budget = o.budget ?? null;
  const encode = (s: string) => {
    const bytes = Buffer.from(s, 'utf8');
    budget?.add(bytes.length);
    chunks.push(bytes);
  };
  /** Characters of the INSERT being made: checked against the budget as it grows (characters ≤ bytes). */
  let pending = 0;
  const block = (lines: string[]) => {
    if (blocks++ > 0) out += '\n';
    out += lines.join('\n') + '\n';
    pending = 0;
    if (out.length > 65_536) {
      encode(out);
      out = '';
    }
  };
  if (d.preamble.length > 0) block(d.preamble);
  if (o.createTable) block(createTable(d, name, columns, infos));
  const head = `INSERT INTO ${d.quote(name)} (${columns.map(d.quote).join(', ')}) VALUES`;
  const size = o.batchSize;
  const nul = nulFilter(name);
  // Row 1 holds the titles.
  let at = 0;
  let col = 0;
  const clean = (s: string) => nul.clean(s, () => `${columnLetter(col)}${at + 2}`);
  let statements = 0;
  for (let start = 0; start < rows.length; start += size) {
    const end = Math.min(rows.length, start + size);
    const lines = [head];
    for (let r = start; r < end; r++) {
      const row = rows[r];
      at = r;
      const values = infos.map((info, c) => {
        col = c;
        const text = literal(row[c] ?? null, info.type, d, clean);
        pending += text.length;
        return text;
      });
      budget?.check(out.length + pending);
      lines.push(`  (${values.join(', ')})${r === end - 1 ? ';' : ','}`);
    }
    block(lines);
    statements++;
  }
  encode(out);
  return { ...writtenOf(joinBytes(chunks), { name, header: columns, width: columns.length }, rows), removed: nul.removed(), statements };
}

function createTable(d: Dialect, name: string, names: string[], infos: ColumnInfo[]): string[] {
  const types = typeNames(infos.map((info) => info.type), d);
  const defs = names.map((n, i) => `  ${d.quote(n)} ${types[i]}${i < names.length - 1 ? ',' : ''}`);
  return [`CREATE TABLE ${d.quote(name)} (`, ...defs, `)${d.tableSuffix};`];
}
