// An independent reader for .xlsx results (exceljs, not the SheetJS the service writes with), so that tests
// check what another program sees: cell values, types, number formats and formulas.
import ExcelJS from 'exceljs';
import type { Cell } from '../../tools/formats/model.ts';

/** A formula found where none should be: tests comparing values fail on it visibly. */
export interface FormulaCell {
  formula: string;
}

export interface XlsxSheet {
  name: string;
  /** Every row from row 1 to the last used one, each as wide as the widest; empty cells are null. */
  rows: (Cell | FormulaCell)[][];
  /** Number format of each non-empty cell (`General` when none), same shape as `rows`. */
  formats: (string | null)[][];
}

function valueOf(cell: ExcelJS.Cell): Cell | FormulaCell {
  const v = cell.value;
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (v instanceof Date) return v;
  if ('formula' in v || 'sharedFormula' in v) return { formula: String((v as { formula?: string }).formula ?? 'shared') };
  if ('richText' in v) return v.richText.map((r) => r.text).join('');
  if ('error' in v) return v.error;
  if ('text' in v) return String(v.text);
  return JSON.stringify(v);
}

export async function readXlsx(bytes: Uint8Array): Promise<XlsxSheet[]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(Buffer.from(bytes) as unknown as ExcelJS.Buffer);
  const sheets: XlsxSheet[] = [];
  wb.eachSheet((ws) => {
    let width = 0;
    let height = 0;
    ws.eachRow({ includeEmpty: false }, (row, r) => {
      row.eachCell({ includeEmpty: false }, (_c, c) => {
        if (c > width) width = c;
        height = r;
      });
    });
    const rows: (Cell | FormulaCell)[][] = [];
    const formats: (string | null)[][] = [];
    for (let r = 1; r <= height; r++) {
      const row = ws.getRow(r);
      const values: (Cell | FormulaCell)[] = [];
      const fmts: (string | null)[] = [];
      for (let c = 1; c <= width; c++) {
        const cell = row.getCell(c);
        const v = valueOf(cell);
        values.push(v);
        fmts.push(v === null ? null : cell.numFmt || 'General');
      }
      rows.push(values);
      formats.push(fmts);
    }
    sheets.push({ name: ws.name, rows, formats });
  });
  return sheets;
}

/** UTC date helper for expectations: d(2024, 1, 31) is 2024-01-31T00:00:00Z. */
export function d(y: number, m: number, day: number, h = 0, mi = 0, s = 0): Date {
  return new Date(Date.UTC(y, m - 1, day, h, mi, s));
}
