import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import tool from '../../../tools/convert/convert-csv.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';

const utf8 = (b: Uint8Array) => Buffer.from(b).toString('utf8');
const SRC = 'id,nombre,importe,nota\n001,Peña,1.5,"a, b"\n002,Zoë,-2.25,"dice ""hola""\nen dos líneas"\n003,  espacios  ,1.234.5,\n004,corta\n';

test('convert-csv: defaults: semicolon, UTF-8 with a BOM, CRLF, minimal quotes; fields as written, ragged rows kept, inner line breaks kept', async () => {
  const out = await runTool(tool, [inputFile('datos.csv', SRC)]);
  const f = out.files[0];
  assert.equal(f.name, 'datos-convertido.csv');
  assert.equal(f.contentType, 'text/csv; charset=utf-8');
  assert.equal(
    utf8(f.bytes),
    '\uFEFFid;nombre;importe;nota\r\n001;Peña;1.5;a, b\r\n002;Zoë;-2.25;"dice ""hola""\nen dos líneas"\r\n003;  espacios  ;1.234.5;\r\n004;corta\r\n',
  );
  assert.ok(out.messages.some((m) => m.text.includes('utf-8') && m.text.includes('coma (,)')), JSON.stringify(out.messages));
  assert.ok(out.messages.some((m) => m.text.includes('1 registro(s) tienen')), 'the short row is reported and kept');
  assert.match(out.textPreview ?? '', /^id;nombre/);
  // Python's csv module reads the result back to the same fields.
  const py = 'import csv,io,json,sys\ndata=sys.stdin.buffer.read().decode("utf-8-sig")\nprint(json.dumps(list(csv.reader(io.StringIO(data, newline=""), delimiter=";"))))';
  const rows = JSON.parse(execFileSync('/usr/bin/python3', ['-c', py], { input: Buffer.from(f.bytes), encoding: 'utf8' }));
  assert.deepEqual(rows[2], ['002', 'Zoë', '-2.25', 'dice "hola"\nen dos líneas']);
  assert.deepEqual(rows[4], ['004', 'corta']);
});

test('convert-csv: decimal marks change only on plain decimal fields; quote=all; lf; tab gives .tsv; a literal delimiter', async () => {
  const out = await runTool(tool, [inputFile('d.csv', SRC)], { 'decimal-separator': 'comma', quote: 'all', 'line-ending': 'lf', bom: false });
  assert.equal(utf8(out.files[0].bytes).split('\n')[1], '"001";"Peña";"1,5";"a, b"');
  assert.match(utf8(out.files[0].bytes), /"-2,25"/);
  assert.match(utf8(out.files[0].bytes), /"1\.234\.5"/);
  assert.ok(out.messages.some((m) => m.text.includes('2 campo(s) cambiaron')));
  const back = await runTool(tool, [inputFile('d.csv', 'a;b\n1,5;+3,25\n1.234,5;x\n')], { 'decimal-separator': 'point', delimiter: 'comma', bom: false, language: 'en' });
  assert.equal(back.files[0].name, 'd-converted.csv');
  assert.equal(utf8(back.files[0].bytes), 'a,b\r\n1.5,+3.25\r\n"1.234,5",x\r\n');
  const tsv = await runTool(tool, [inputFile('d.csv', 'a,b\n1,2\n')], { delimiter: 'tab', bom: false });
  assert.equal(tsv.files[0].name, 'd-convertido.tsv');
  assert.equal(tsv.files[0].contentType, 'text/tab-separated-values; charset=utf-8');
  assert.equal(utf8(tsv.files[0].bytes), 'a\tb\r\n1\t2\r\n');
  const lit = await runTool(tool, [inputFile('d.csv', 'a,b\n1,2')], { delimiter: '#', bom: false });
  assert.equal(utf8(lit.files[0].bytes), 'a#b\r\n1#2', 'no line end added where the input had none');
});

test('convert-csv: windows-1252 out (iconv reads it back), utf-16le with its BOM; inputs in windows-1252, latin-1, utf-16 and .tsv', async () => {
  const out = await runTool(tool, [inputFile('d.csv', 'n,p\nPeña,€5\n')], { encoding: 'windows-1252' });
  assert.equal(out.files[0].contentType, 'text/csv; charset=windows-1252');
  assert.deepEqual([...out.files[0].bytes.subarray(0, 3)], [0x6e, 0x3b, 0x70], 'no BOM for windows-1252');
  assert.equal(execFileSync('iconv', ['-f', 'WINDOWS-1252', '-t', 'UTF-8'], { input: Buffer.from(out.files[0].bytes), encoding: 'utf8' }), 'n;p\r\nPeña;€5\r\n');
  assert.match(out.textPreview ?? '', /Peña;€5/);
  const u16 = await runTool(tool, [inputFile('d.csv', 'n,p\nZoë,1\n')], { encoding: 'utf-16le' });
  assert.deepEqual([...u16.files[0].bytes.subarray(0, 2)], [0xff, 0xfe]);
  assert.equal(Buffer.from(u16.files[0].bytes.subarray(2)).toString('utf16le'), 'n;p\r\nZoë;1\r\n');
  const cp = Buffer.from([...Buffer.from('a;b\n'), 0x80, 0x3b, 0xf1, 0x0a]);
  const fromCp = await runTool(tool, [inputFile('cp.csv', cp)], { bom: false });
  assert.equal(utf8(fromCp.files[0].bytes), 'a;b\r\n€;ñ\r\n');
  assert.ok(fromCp.messages.some((m) => m.text.includes('windows-1252')));
  const latin = await runTool(tool, [inputFile('l.txt', cp)], { bom: false, 'input-encoding': 'iso-8859-1', encoding: 'utf-16le' });
  assert.equal(Buffer.from(latin.files[0].bytes.subarray(2)).toString('utf16le'), 'a;b\r\n\u0080;ñ\r\n');
  const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('x,y\n1,2\n', 'utf16le').swap16()]);
  const fromBe = await runTool(tool, [inputFile('be.csv', be)], { bom: false });
  assert.equal(utf8(fromBe.files[0].bytes), 'x;y\r\n1;2\r\n');
  const tsv = await runTool(tool, [inputFile('t.tsv', 'a,b\tc\n1\t2\n')], { bom: false, delimiter: 'comma' });
  assert.equal(utf8(tsv.files[0].bytes), '"a,b",c\r\n1,2\r\n');
  const forced = await runTool(tool, [inputFile('p.csv', 'a|b,c\n1|2,3\n')], { bom: false, 'input-delimiter': 'pipe' });
  assert.equal(utf8(forced.files[0].bytes), 'a;b,c\r\n1;2,3\r\n');
});

test('convert-csv: errors', async () => {
  await rejectsWith(runTool(tool, [inputFile('d.csv', 'n\nPeña\nnaïve ✓\n')], { encoding: 'windows-1252' }), 'invalid_option', { option: 'encoding', params: { char: '✓', line: 3 } });
  await rejectsWith(runTool(tool, [inputFile('d.csv', 'a,b\n1,2\n')], { 'decimal-separator': 'comma', delimiter: 'comma' }), 'invalid_option', { option: 'decimal-separator' });
  await rejectsWith(runTool(tool, [inputFile('d.csv', 'a,b\n1,2\n3,"abierta\n4,5\n')]), 'invalid_file', { option: 'file', params: { line: 3 } });
  await rejectsWith(runTool(tool, [inputFile('d.csv', Buffer.from([0x61, 0x00, 0x62, 0x2c, 0x63]))], { 'input-encoding': 'utf-8' }), 'invalid_file', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('d.csv', Buffer.from([0x61, 0xff, 0x2c, 0x62]))], { 'input-encoding': 'utf-8' }), 'invalid_file', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('d.xlsx', 'a,b')]), 'unsupported_format', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('d.csv', 'a,b')], { delimiter: '"' }), 'invalid_option', { option: 'delimiter' });
  await rejectsWith(runTool(tool, [inputFile('d.csv', 'a,b')], { encoding: 'latin1' }), 'invalid_option', { option: 'encoding' });
});
