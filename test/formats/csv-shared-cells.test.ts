// The CSV reader shares one string per repeated text of a column and one Date per repeated date, sizes each
// record like the one before and copies kept texts out of the file's text (shared-cells.ts, csv.ts). None of
// that may change a value: a generated CSV with repeated and distinct texts and dates (more than the lookups
// and the date table hold), rows of changing widths and a blank line goes through csv-to-excel and is read back
// with exceljs.
import { RecentDates } from '../../tools/formats/shared-cells.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import tool from '../../tools/convert/csv-to-excel.ts';
import { readCsv } from '../../tools/formats/csv/read.ts';
import type { Cell } from '../../tools/formats/model.ts';
import { inputFile, runTool } from '../helpers/run-tool.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';

const ROWS = 5000;
const DAY = 86_400_000;
const NAMES = ['Nuria Castaño Pérez', 'Begoña Gómez', 'Lucía Núñez de Arco', 'Íñigo', 'Zoë'];
const LONG = 'Texto largo que se repite en muchas filas y tiene más de cien caracteres para que no se busque entre los repetidos: ' + 'x'.repeat(20);
const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const iso = (t: number) => {
  const d = new Date(t);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
};

function generate(): { csv: string; rows: Cell[][] } {
  const lines = ['id,dia,fecha,momento,cliente,email,nota,comentario,largo,extra'];
  const rows: Cell[][] = [['id', 'dia', 'fecha', 'momento', 'cliente', 'email', 'nota', 'comentario', 'largo', 'extra']];
  const base = Date.UTC(2020, 0, 1);
  for (let i = 0; i < ROWS; i++) {
    const repeated = base + (i % 7) * DAY;
    // Distinct days, more of them than the date table has slots, with the same day written two ways.
    const distinct = Date.UTC(1990, 0, 1) + i * DAY;
    const day = new Date(distinct);
    const fecha = i % 2 === 0 ? iso(distinct) : `${day.getUTCDate()}/${day.getUTCMonth() + 1}/${day.getUTCFullYear()}`;
    // The same day at different times (same slot, different dates), some with milliseconds.
    const moment = base + (i % 3) * DAY + (i % 5) * 3_600_000 + (i % 4) * 1000 + (i % 2) * 7;
    const m = new Date(moment);
    const momento = `${iso(moment)}T${pad(m.getUTCHours())}:${pad(m.getUTCMinutes())}:${pad(m.getUTCSeconds())}.${pad(m.getUTCMilliseconds(), 3)}`;
    const cliente = NAMES[i % NAMES.length];
    const email = `cliente.numero${i}@ejemplo.es`;
    const nota = i % 11 === 0 ? '' : `nota ${i % 4}`;
    const comentario = `Pedido ${i % 3}, entrega "urgente"`;
    const largo = i % 2 === 0 ? LONG : `${LONG} ${i}`;
    // Widths change: every 50th row has two more fields, the one after it two fewer.
    const cells: Cell[] = [i, new Date(repeated), new Date(distinct), new Date(moment), cliente, email, nota === '' ? null : nota, comentario, largo, null];
    const fields = [String(i), iso(repeated), fecha, momento, cliente, email, nota, `"${comentario.replaceAll('"', '""')}"`, largo, ''];
    if (i % 50 === 0) {
      fields.push('más', 'campos largos de verdad');
      cells.push('más', 'campos largos de verdad');
    } else if (i % 50 === 1) {
      fields.length = 8;
      cells.length = 8;
    }
    lines.push(fields.join(','));
    rows.push(cells);
    if (i === ROWS / 2) {
      lines.push('');
      rows.push([]);
    }
  }
  const width = 12;
  for (const r of rows) while (r.length < width) r.push(null);
  return { csv: lines.join('\r\n') + '\r\n', rows };
}

test('csv-to-excel: repeated and distinct texts and dates, rows of changing widths, read back exactly', async () => {
  const { csv, rows } = generate();
  const out = await runTool(tool, [inputFile('compartido.csv', Buffer.from(csv, 'utf8'))]);
  const [sheet] = await readXlsx(out.files[0].bytes);
  assert.equal(sheet.rows.length, rows.length);
  for (let r = 0; r < rows.length; r++) assert.deepEqual(sheet.rows[r], rows[r], `row ${r + 1}`);
});

test('readCsv: equal dates and repeated texts of a column share one value; other columns and cells are their own', () => {
  const csv = 'a,b,c\n2024-01-31,Nuria Castaño Pérez,x\n31/01/2024,Nuria Castaño Pérez,Nuria Castaño Pérez\n2024-01-31 00:00,otra,y\n';
  const { rows } = readCsv(inputFile('s.csv', Buffer.from(csv, 'utf8')), { hasHeader: true, detectTypes: true }).table;
  assert.equal(rows[0][0], rows[1][0]);
  assert.equal(rows[1][0], rows[2][0]);
  assert.ok(rows[0][0] instanceof Date && rows[0][0].getTime() === Date.UTC(2024, 0, 31));
  assert.deepEqual(rows.map((r) => r[1]), ['Nuria Castaño Pérez', 'Nuria Castaño Pérez', 'otra']);
  assert.deepEqual(rows.map((r) => r[2]), ['x', 'Nuria Castaño Pérez', 'y']);
});

test('RecentDates: equal dates share one Date before and after the table grows; unequal ones never do', () => {
  const dates = new RecentDates();
  const DAY = 86_400_000;
  const first = Array.from({ length: 3000 }, (_, i) => dates.share(new Date(Date.UTC(2000, 0, 1) + i * DAY)));
  for (let i = 0; i < 3000; i++) {
    const again = dates.share(new Date(Date.UTC(2000, 0, 1) + i * DAY));
    assert.equal(again.getTime(), Date.UTC(2000, 0, 1) + i * DAY);
    // The first 64 were in the small table, dropped when it grew; from the 65th on, the grown table keeps them.
    if (i >= 64) assert.equal(again, first[i], `day ${i}`);
  }
  assert.equal(dates.share(new Date(Date.UTC(2000, 0, 1))), dates.share(new Date(Date.UTC(2000, 0, 1))));
});
