import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeText, detectDelimiter, parseCsv, readCsv } from '../../tools/formats/csv/read.ts';
import { plainNumber, writeCsv } from '../../tools/formats/csv/write.ts';
import type { ToolError } from '../../tools/core/errors.ts';
import { errorBody } from '../../tools/core/wire.ts';
import { fixture, inputFile } from '../helpers/run-tool.ts';
import { readFirstTable } from '../helpers/read-tables.ts';
import { d, readXlsx } from '../helpers/read-xlsx.ts';
import { writeXlsx } from '../../tools/formats/xlsx/write.ts';
import { createContext } from '../../tools/core/execute.ts';

type Msg = { level: string; key: string; params?: Record<string, string | number> };
function collector() {
  const msgs: Msg[] = [];
  return { msgs, report: (level: string, key: string, params?: Record<string, string | number>) => void msgs.push({ level, key, params }) };
}

const read = (name: string, content: string | Uint8Array, o: { hasHeader?: boolean; detectTypes?: boolean; delimiter?: string } = {}) => {
  const c = collector();
  const res = readCsv(inputFile(name, content), { hasHeader: o.hasHeader ?? true, detectTypes: o.detectTypes ?? false, delimiter: o.delimiter, report: c.report });
  return { ...res, msgs: c.msgs };
};

test('decodeText: UTF-8 with and without BOM', () => {
  assert.deepEqual(decodeText(new TextEncoder().encode('\uFEFFaño')), { text: 'año', encoding: 'utf-8' });
  assert.deepEqual(decodeText(new TextEncoder().encode('año')), { text: 'año', encoding: 'utf-8' });
});

test('decodeText: UTF-16 LE and BE with BOM, and LE without BOM', () => {
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a;ñ\r\n', 'utf16le')]);
  assert.deepEqual(decodeText(le), { text: 'a;ñ\r\n', encoding: 'utf-16le' });
  const be = Buffer.from(Buffer.from('\uFEFFa;ñ', 'utf16le').swap16());
  assert.deepEqual(decodeText(be), { text: 'a;ñ', encoding: 'utf-16be' });
  assert.deepEqual(decodeText(Buffer.from('id,nombre\r\n1,José\r\n', 'utf16le')), { text: 'id,nombre\r\n1,José\r\n', encoding: 'utf-16le' });
});

test('decodeText: bytes that are not UTF-8 are Windows-1252 (accents, euro sign)', () => {
  const bytes = Buffer.from([0x41, 0xf1, 0x6f, 0x3b, 0x80, 0x3b, 0xe9]); // Año;€;é
  assert.deepEqual(decodeText(bytes), { text: 'Año;€;é', encoding: 'windows-1252' });
});

test('readCsv: Windows-1252 fixture keeps its accents and says how it was read', () => {
  const c = collector();
  const { table, encoding, delimiter } = readCsv(fixture('latin1.csv'), { hasHeader: true, detectTypes: true, report: c.report });
  assert.equal(encoding, 'windows-1252');
  assert.equal(delimiter, ';');
  assert.deepEqual(table, { name: 'latin1', header: ['Año', 'Ciudad', 'Importe'], rows: [[2024, 'Málaga', 1.5], [2023, 'Cáceres', -2.25]] });
  assert.deepEqual(c.msgs, [{ level: 'info', key: 'csv_encoding', params: { name: 'latin1.csv', encoding: 'Windows-1252' } }]);
});

test('readCsv: UTF-16 file with BOM', () => {
  const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Ciudad\tCódigo\r\nÁvila\t007\r\n', 'utf16le')]);
  const { table, delimiter } = read('u16.csv', bytes);
  assert.equal(delimiter, '\t');
  assert.deepEqual(table.header, ['Ciudad', 'Código']);
  assert.deepEqual(table.rows, [['Ávila', '007']]);
});

test('detectDelimiter: comma, semicolon, tab, pipe', () => {
  assert.equal(detectDelimiter('a,b,c\n1,2,3\n'), ',');
  assert.equal(detectDelimiter('a;b;c\n1;2;3\n'), ';');
  assert.equal(detectDelimiter('a\tb\n1\t2\n'), '\t');
  assert.equal(detectDelimiter('a|b\n1|2\n'), '|');
  assert.equal(detectDelimiter('solo\nuna\ncolumna\n'), ',');
});

test('detectDelimiter: semicolon file with decimal commas is semicolon, even on one line', () => {
  assert.equal(detectDelimiter('precio;cantidad\n1,5;2,5\n3,25;4\n'), ';');
  assert.equal(detectDelimiter('1,5;2,5'), ';');
  assert.equal(detectDelimiter('a;b\n1,5;2,5\n3,5;4,5\n'), ';');
});

test('detectDelimiter: commas inside quotes do not count', () => {
  assert.equal(detectDelimiter('nombre;nota\n"a, b, c";x\n"d, e";y\n'), ';');
  assert.equal(detectDelimiter('nombre,nota\n"a; b",x\n"c;d",y\n'), ',');
});

test('parseCsv: quoted fields with delimiters, doubled quotes and newlines', () => {
  const { rows } = parseCsv('a,"b,1","say ""hi""","line 1\r\nline 2\nline 3"\r\nx,,"",z', ',');
  assert.deepEqual(rows, [
    ['a', 'b,1', 'say "hi"', 'line 1\r\nline 2\nline 3'],
    ['x', '', '', 'z'],
  ]);
});

test('parseCsv: mixed CRLF, LF and CR line ends; a final line end adds no row; blank lines are rows', () => {
  assert.deepEqual(parseCsv('a,b\r\n1,2\n3,4\r5,6\n\n7,8\r\n', ',').rows, [['a', 'b'], ['1', '2'], ['3', '4'], ['5', '6'], [''], ['7', '8']]);
  assert.deepEqual(parseCsv('a,b,', ',').rows, [['a', 'b', '']]);
  assert.deepEqual(parseCsv('', ',').rows, []);
});

test('parseCsv: a stray quote inside a field and text after a closing quote are kept', () => {
  assert.deepEqual(parseCsv('5" pipe,x\n"ab"cd,y', ',').rows, [['5" pipe', 'x'], ['abcd', 'y']]);
});

test('parseCsv: a quote that never closes is read as a character, and the rest of the file still parses', () => {
  const res = parseCsv('a,b\n"open,1\n2,3\n', ',');
  assert.deepEqual(res.rows, [['a', 'b'], ['"open', '1'], ['2', '3']]);
  assert.deepEqual(res.unclosedQuotes, [2]);
  const r = read('q.csv', 'a,b\n"open,1\n2,3\n');
  assert.deepEqual(r.table.rows, [['"open', '1'], ['2', '3']]);
  assert.equal(r.msgs[0].key, 'csv_unclosed_quote');
  assert.equal(r.msgs[0].params?.line, 2);
});

test('readCsv: ragged rows are padded, never cut, with a warning', () => {
  const r = read('r.csv', 'a,b,c\n1,2\n3,4,5,6\n7,8,9\n');
  assert.deepEqual(r.table.header, ['a', 'b', 'c', '']);
  assert.deepEqual(r.table.rows, [
    ['1', '2', null, null],
    ['3', '4', '5', '6'],
    ['7', '8', '9', null],
  ]);
  assert.deepEqual(r.msgs, [{ level: 'warning', key: 'ragged_rows', params: { name: 'r.csv', count: 2, row: 2, found: 2, expected: 3, width: 4 } }]);
});

test('readCsv: blank lines around the data are dropped, blank lines inside are kept as empty rows', () => {
  const r = read('b.csv', '\n\na,b\n1,2\n\n3,4\n\n\n');
  assert.deepEqual(r.table.header, ['a', 'b']);
  assert.deepEqual(r.table.rows, [['1', '2'], [null, null], ['3', '4']]);
  assert.deepEqual(r.msgs, []);
});

test('readCsv: values are never trimmed; without detection every cell is text and empty is null', () => {
  const r = read('t.csv', 'a,b,c\n  x , 12,\n');
  assert.deepEqual(r.table.rows, [['  x ', ' 12', null]]);
});

test('readCsv: has-header false keeps the first row as data, typed', () => {
  const r = read('h.csv', '2024,x\n1,y\n', { hasHeader: false, detectTypes: true });
  assert.equal(r.table.header, null);
  assert.deepEqual(r.table.rows, [[2024, 'x'], [1, 'y']]);
});

test('readCsv: the header row is never typed', () => {
  const r = read('h.csv', '2024,true\n1,false\n', { detectTypes: true });
  assert.deepEqual(r.table.header, ['2024', 'true']);
  assert.deepEqual(r.table.rows, [[1, false]]);
});

test('readCsv: type detection on the semicolon fixture (ids keep their zeros, decimal comma, both date forms)', () => {
  const { table } = readCsv(fixture('semicolon.csv'), { hasHeader: true, detectTypes: true });
  assert.deepEqual(table.header, ['id', 'nombre', 'nota', 'importe', 'fecha']);
  assert.deepEqual(table.rows, [
    ['00123', 'Pérez; Juan', 'línea 1\nlínea 2', 1.5, d(2024, 1, 31)],
    ['0042', 'Zoë', 'dice "hola"', 10, d(2023, 12, 31)],
  ]);
});

test('readCsv: a comma file never reads a comma as a decimal mark', () => {
  const r = read('c.csv', 'a;b\n"1,5";x\n', { detectTypes: true, delimiter: ';' });
  assert.deepEqual(r.table.rows, [[1.5, 'x']]);
  const c = read('c.csv', 'a,b\n"1,5",x\n', { detectTypes: true });
  assert.deepEqual(c.table.rows, [['1,5', 'x']]);
});

test('readCsv: an explicit delimiter wins over detection', () => {
  const r = read('p.csv', 'a,b|c\n1,2|3\n', { delimiter: '|' });
  assert.deepEqual(r.table.header, ['a,b', 'c']);
});

test('plainNumber: no exponent, point decimals', () => {
  assert.equal(plainNumber(1.5), '1.5');
  assert.equal(plainNumber(-0), '0');
  assert.equal(plainNumber(1e21), '1000000000000000000000');
  assert.equal(plainNumber(1.5e-7), '0.00000015');
  assert.equal(plainNumber(-2.5e-8), '-0.000000025');
  assert.equal(plainNumber(123456789012345), '123456789012345');
});

test('writeCsv: RFC 4180 quoting, CRLF, BOM, typed cells', () => {
  const bytes = writeCsv({
    name: 't',
    header: ['Texto', 'Número', 'Fecha', 'Bool', 'Vacío'],
    rows: [
      ['a,b', 1.25, d(2024, 1, 31), true, null],
      ['say "hi"', -3, d(2024, 1, 31, 13, 5, 9), false, null],
      ['two\nlines', 1e-7, new Date(Date.UTC(1899, 11, 30, 10, 30)), null, null],
      ['=SUM(A1)', 0, null, null, '00123'],
    ],
  });
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  assert.equal(
    text,
    '\uFEFFTexto,Número,Fecha,Bool,Vacío\r\n' +
      '"a,b",1.25,2024-01-31,true,\r\n' +
      '"say ""hi""",-3,2024-01-31T13:05:09,false,\r\n' +
      '"two\nlines",0.0000001,10:30:00,,\r\n' +
      '=SUM(A1),0,,,00123\r\n',
  );
});

test('writeCsv: delimiter, no BOM, no header; a lone empty field is kept as ""', () => {
  const t = { name: 't', header: ['a'], rows: [['x;y'], [null], ['z']] };
  assert.equal(new TextDecoder().decode(writeCsv(t, { delimiter: ';', bom: false, includeHeader: false })), '"x;y"\r\n""\r\nz\r\n');
});

test('csv round trip: what writeCsv writes, readCsv reads back exactly', () => {
  const rows = [
    ['00123', ' spaced ', 'a "q", b', 'multi\r\nline', '=1+1', '+34 600 000 000', 'ñ€'],
    [null, '', 'x', null, null, null, null],
  ];
  const bytes = writeCsv({ name: 'x', header: ['a', 'b', 'c', 'd', 'e', 'f', 'g'], rows });
  const back = readCsv(inputFile('x.csv', bytes), { hasHeader: true, detectTypes: false });
  assert.deepEqual(back.table.rows, [rows[0], [null, null, 'x', null, null, null, null]]);
  assert.equal(back.delimiter, ',');
});

test('csv: an empty file, a lone BOM or only blank lines is invalid_file with its own message', async () => {
  for (const bytes of [new Uint8Array(0), new Uint8Array([0xef, 0xbb, 0xbf]), new TextEncoder().encode('\r\n\n\r\n')]) {
    assert.throws(
      () => readFirstTable({ name: 'vacío.csv', bytes }, { hasHeader: true, detectTypes: true, option: 'files' }),
      (e: ToolError) => {
        assert.equal(e.code, 'invalid_file');
        assert.equal(e.detail.option, 'files');
        assert.equal(errorBody(e, 'en').message, 'The file "vacío.csv" is empty: it holds no row of data.');
        return true;
      },
    );
  }
});

test('csv to xlsx: a CSV whose sheet XML is deflated in several pieces reads back whole with exceljs', async () => {
  // 40,000 rows give about 4 MB of sheet XML, deflated by write-xlsx in pieces of 1 M characters.
  const n = 40_000;
  let text = 'id;nombre;importe;fecha\r\n';
  for (let i = 1; i <= n; i++) text += `${i};"Peña, ${i % 97}";${i % 1000},5;2024-01-${String(1 + (i % 28)).padStart(2, '0')}\n`;
  const { table } = readCsv(inputFile('grande.csv', text), { hasHeader: true, detectTypes: true });
  const [sheet] = await readXlsx(writeXlsx([table], createContext('es', new AbortController().signal, [])));
  assert.equal(sheet.rows.length, n + 1);
  assert.deepEqual(sheet.rows[0], ['id', 'nombre', 'importe', 'fecha']);
  for (const i of [1, 12_345, 29_999, n]) {
    assert.deepEqual(sheet.rows[i], [i, `Peña, ${i % 97}`, (i % 1000) + 0.5, d(2024, 1, 1 + (i % 28))]);
  }
});
