// A workbook with everything tools.md §2.7 asks the workbook tools to keep, written by exceljs (a writer
// independent of the service's): typed cells with number formats, a formula with its cached value, an error
// cell, merged ranges, column widths, a hidden sheet whose table starts at B3, sheets in a set order. And
// openpyxl (Python) to read an .xlsx result back with the same facts.
import { execFileSync } from 'node:child_process';
import ExcelJS from 'exceljs';
import { PYTHON } from './office.ts';

export const d = (y: number, m: number, day: number, h = 0, mi = 0) => new Date(Date.UTC(y, m - 1, day, h, mi));

export async function richWorkbook(): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  const s = wb.addWorksheet('Datos');
  s.addRow(['Nombre', 'Importe', 'Fecha', 'Pct', 'Código']);
  s.addRow(['Ana', 1234.5, d(2024, 1, 15), 0.25, '00123']);
  s.addRow(['Luis', 7, d(2024, 2, 29, 13, 45), 0.5, { error: '#N/A' }]);
  s.addRow(['Suma', { formula: 'SUM(B2:B3)', result: 1241.5 }]);
  s.addRow([]);
  s.addRow(['Total combinado']);
  s.mergeCells('A6:C6');
  for (const r of [2, 3, 4]) s.getCell(`B${r}`).numFmt = '#,##0.00';
  s.getCell('C2').numFmt = 'dd/mm/yyyy';
  s.getCell('C3').numFmt = 'yyyy-mm-dd hh:mm';
  s.getCell('D2').numFmt = '0%';
  s.getCell('D3').numFmt = '0%';
  s.getColumn(1).width = 20;
  s.getColumn(2).width = 12.5;
  const h = wb.addWorksheet('Oculta', { state: 'hidden' });
  h.getCell('B3').value = 'desplazada';
  h.getCell('C4').value = 42;
  wb.addWorksheet('Tercera').getCell('A1').value = 'x';
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

export interface PySheet {
  name: string;
  state: string;
  merged: string[];
  widths: Record<string, number>;
  /** Non-empty cells by reference: value (dates as ISO text), data type, number format. */
  cells: Record<string, [string | number | boolean, string, string]>;
}

const OPENPYXL = `
import json, sys, datetime, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
out = []
for ws in wb.worksheets:
    cells = {}
    for row in ws.iter_rows():
        for c in row:
            if c.value is None: continue
            v = c.value
            if isinstance(v, (datetime.datetime, datetime.date)): v = v.isoformat()
            cells[c.coordinate] = [v if isinstance(v, (int, float, bool)) else str(v), c.data_type, c.number_format]
    widths = {k: d.width for k, d in ws.column_dimensions.items() if d.customWidth}
    out.append({'name': ws.title, 'state': ws.sheet_state, 'merged': sorted(str(r) for r in ws.merged_cells.ranges), 'widths': widths, 'cells': cells})
json.dump({'active': wb.active.title, 'sheets': out}, sys.stdout)
`;

export function openpyxl(path: string): { active: string; sheets: PySheet[] } {
  return JSON.parse(execFileSync(PYTHON, ['-c', OPENPYXL, path], { encoding: 'utf8', maxBuffer: 1 << 28, timeout: 540_000 }));
}

/**
 * What an .xlsx holding richWorkbook's content must show to openpyxl (tools.md §2.7): sheets in order with
 * their visibility, the first visible one active, values and types, number formats, the merged range, the
 * column widths, the hidden sheet's cells where they were. `formula`: whether B4 keeps its formula.
 */
export function assertRichXlsx(path: string, o: { formula: boolean; widths?: boolean; hidden?: boolean; errorFormula?: boolean }, eq: (a: unknown, b: unknown, m?: string) => void): void {
  const book = openpyxl(path);
  eq(book.active, 'Datos', 'active sheet');
  eq(book.sheets.map((s) => [s.name, o.hidden === false || s.state]), [['Datos', true], ['Oculta', o.hidden === false || 'hidden'], ['Tercera', true]].map(([n, v]) => [n, v === true ? (o.hidden === false ? true : 'visible') : v]), 'sheets and visibility');
  const [datos, oculta, tercera] = book.sheets;
  eq(datos.merged, ['A6:C6'], 'merged range');
  // Within 10 %: each program turns character widths into its own units and back (Gnumeric adds padding).
  const near = (w: number, want: number) => Math.abs(w / want - 1) <= 0.1;
  if (o.widths !== false) eq([near(datos.widths.A, 20), near(datos.widths.B, 12.5)], [true, true], `column widths ${JSON.stringify(datos.widths)}`);
  const c = datos.cells;
  eq(c.A1, ['Nombre', 's', 'General']);
  eq(c.B2, [1234.5, 'n', '#,##0.00']);
  eq(c.C2, ['2024-01-15T00:00:00', 'd', 'dd/mm/yyyy']);
  eq(c.C3, ['2024-02-29T13:45:00', 'd', 'yyyy-mm-dd hh:mm']);
  eq(c.D2, [0.25, 'n', '0%']);
  eq(c.E2, ['00123', 's', 'General'], 'leading zeros stay text');
  // An ODS error cell is the formula that gives it, as LibreOffice writes them: Gnumeric carries the formula.
  eq(c.E3, o.errorFormula ? ['=NA()', 'f', 'General'] : ['#N/A', 'e', 'General'], 'an error stays an error');
  eq(c.B4, o.formula ? ['=SUM(B2:B3)', 'f', '#,##0.00'] : [1241.5, 'n', '#,##0.00']);
  eq(c.A6, ['Total combinado', 's', 'General']);
  eq(oculta.cells, { B3: ['desplazada', 's', 'General'], C4: [42, 'n', 'General'] }, 'cells stay where they were');
  eq(tercera.cells, { A1: ['x', 's', 'General'] });
}
