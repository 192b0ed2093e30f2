// excel-to-vcard: cards as address books import them (3.0 by default, 4.0 on request), fields found by their
// Spanish and English titles or given as options, values escaped and lines folded at 75 octets without cutting
// a character. Every result is also parsed whole by ical.js's strict vCard parser (ICAL.parse), which refuses a
// malformed line, a card left open or a stray one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import ExcelJS from 'exceljs';
import tool from '../../../tools/convert/excel-to-vcard.ts';
import { d } from '../../helpers/read-xlsx.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { textOf } from '../../helpers/typed-titles.ts';

async function workbook(rows: unknown[][], name = 'contactos.xlsx') {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Contactos');
  for (const r of rows) ws.addRow(r);
  return inputFile(name, new Uint8Array(await wb.xlsx.writeBuffer()));
}

/** The cards of a result, parsed by ical.js as one strict document: each card's properties as [name, params, value]. */
function parsed(vcf: string): [string, Record<string, unknown>, unknown][][] {
  const doc = ICAL.parse(vcf) as unknown;
  const cards = (Array.isArray((doc as unknown[])[0]) ? doc : [doc]) as [string, [string, Record<string, unknown>, string, ...unknown[]][]][];
  return cards.map(([, props]) => props.map(([name, params, , ...values]) => [name, params, values.length === 1 ? values[0] : values]));
}

const ES = ['Nombre', 'Apellidos', 'Empresa', 'Cargo', 'Teléfono', 'Móvil', 'E-mail', 'Dirección', 'Ciudad', 'Provincia', 'C.P.', 'País', 'Fecha de nacimiento', 'Web', 'Notas'];
const ANA = ['Ana', 'Muñoz Peña', 'Acme; S.L.', 'Jefa, ventas', 912345678, '+34 600 111 222', 'ana@acme.es', 'C/ Mayor, 1', 'Madrid', 'Madrid', '08001', 'España', d(1985, 4, 12), 'https://acme.es/a?b=1;c=2', 'línea 1\r\nlínea 2 \\ fin'];

test('excel-to-vcard: 3.0 by default, fields found by their Spanish titles, values escaped, CRLF', async () => {
  const out = await runTool(tool, [await workbook([ES, ANA])]);
  assert.deepEqual(out.files.map((f) => [f.name, f.contentType]), [['contactos.vcf', 'text/vcard; charset=utf-8']]);
  const vcf = textOf(out.files[0].bytes);
  assert.equal(
    vcf,
    [
      'BEGIN:VCARD',
      'VERSION:3.0',
      'FN:Ana Muñoz Peña',
      'N:Muñoz Peña;Ana;;;',
      'ORG:Acme\\; S.L.',
      'TITLE:Jefa\\, ventas',
      'TEL;TYPE=VOICE:912345678',
      'TEL;TYPE=CELL:+34 600 111 222',
      'EMAIL;TYPE=INTERNET:ana@acme.es',
      'ADR:;;C/ Mayor\\, 1;Madrid;Madrid;08001;España',
      'BDAY:1985-04-12',
      'URL:https://acme.es/a?b=1\\;c=2',
      'NOTE:línea 1\\nlínea 2 \\\\ fin',
      'END:VCARD',
      '',
    ].join('\r\n'),
  );
  assert.equal(out.textPreview, vcf);
  const [card] = parsed(vcf);
  assert.deepEqual(card.find((p) => p[0] === 'note')?.[2], 'línea 1\nlínea 2 \\ fin');
  assert.deepEqual(card.find((p) => p[0] === 'adr')?.[2], ['', '', 'C/ Mayor, 1', 'Madrid', 'Madrid', '08001', 'España']);
  // The preview is the contacts as mapped, one column per field.
  assert.deepEqual(out.preview?.columns, ['full-name', 'first-name', 'last-name', 'org', 'job-title', 'phone', 'mobile', 'email', 'address', 'city', 'region', 'postal-code', 'country', 'birthday', 'url', 'note'].filter((f) => f !== 'full-name'));
  const infos = out.messages.filter((m) => m.level === 'info').map((m) => m.text);
  assert.ok(infos.includes('Columnas usadas: Nombre → first-name, Apellidos → last-name, Empresa → org, Cargo → job-title, Teléfono → phone, Móvil → mobile, E-mail → email, Dirección → address, Ciudad → city, Provincia → region, C.P. → postal-code, País → country, Fecha de nacimiento → birthday, Web → url, Notas → note.'), JSON.stringify(infos));
});

test('excel-to-vcard: 4.0 on request: lower-case types, EMAIL without type, BDAY yyyymmdd, N only with a name', async () => {
  const out = await runTool(tool, [await workbook([['Empresa', 'Correo', 'Cumpleaños'], ['Acme', 'info@acme.es', '12/04/1985']])], { version: '4.0' });
  const vcf = textOf(out.files[0].bytes);
  assert.equal(vcf, 'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Acme\r\nORG:Acme\r\nEMAIL:info@acme.es\r\nBDAY:19850412\r\nEND:VCARD\r\n');
  parsed(vcf);
  const v3 = textOf((await runTool(tool, [await workbook([['Empresa', 'Correo'], ['Acme', 'info@acme.es']])])).files[0].bytes);
  assert.ok(v3.includes('\r\nN:;;;;\r\n'), 'N is always written in 3.0');
  const tel = textOf((await runTool(tool, [await workbook([['Phone', 'Cell phone'], [123, '600']])], { version: '4.0' })).files[0].bytes);
  assert.ok(tel.includes('FN:123\r\nTEL;TYPE=voice:123\r\nTEL;TYPE=cell:600\r\n'), tel);
});

test('excel-to-vcard: lines fold at 75 octets without cutting a character, and unfold to the value', async () => {
  const long = 'Ñandú 😀 中文 ' + 'é'.repeat(100) + ' x'.repeat(80) + '😀'.repeat(40);
  const out = await runTool(tool, [await workbook([['Nombre completo', 'Notas'], ['Ana', long]])]);
  const bytes = Buffer.from(out.files[0].bytes);
  const lines = bytes.toString('utf8').split('\r\n');
  let start = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line, 'utf8');
    assert.ok(size <= 75, `a line of ${size} octets`);
    // Each physical line is whole UTF-8 on its own: no character was cut.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(start, start + size));
    start += size + 2;
  }
  assert.ok(lines.filter((l) => l.startsWith(' ')).length > 5);
  const [card] = parsed(bytes.toString('utf8'));
  assert.equal(card.find((p) => p[0] === 'note')?.[2], long);
});

test('excel-to-vcard: no cell can start a property or a card', async () => {
  const evil = 'x\r\nEND:VCARD\r\nBEGIN:VCARD\r\nFN:Intruso\nTEL:1\rNOTE:y';
  const out = await runTool(tool, [await workbook([['Nombre completo', 'Notas', 'Email'], [evil, evil, 'a@b;c,d\\e']])]);
  const vcf = textOf(out.files[0].bytes);
  const cards = parsed(vcf);
  assert.equal(cards.length, 1);
  assert.equal(cards[0].find((p) => p[0] === 'fn')?.[2], evil.replace(/\r\n|\r/g, '\n'));
  assert.equal(vcf.split('\r\n').filter((l) => /^(BEGIN|END):VCARD$/.test(l)).length, 2);
  assert.ok(vcf.includes('EMAIL;TYPE=INTERNET:a@b\\;c\\,d\\\\e\r\n'));
});

test('excel-to-vcard: English and numbered titles, options first, auto-detect off', async () => {
  const titles = ['Display name', 'Given name', 'Surname', 'Phone', 'Phone 2', 'Email', 'E mail 2', 'e_mail 3', 'ZIP code', 'Town', 'Extra'];
  const row = ['Bob B.', 'Bob', 'Brown', '111', '222', 'b@x.com', 'b2@x.com', 'b3@x.com', '02134', 'Boston', 'nota'];
  const out = await runTool(tool, [await workbook([titles, row])], { language: 'en', note: 'Extra', 'full-name': 2 });
  const [card] = parsed(textOf(out.files[0].bytes));
  const values = (name: string) => card.filter((p) => p[0] === name).map((p) => p[2]);
  // full-name given as position 2 (Given name): Display name is left for nothing.
  assert.deepEqual(values('fn'), ['Bob']);
  assert.deepEqual(values('n'), [['Brown', '', '', '', '']]);
  assert.deepEqual(values('tel'), ['111', '222']);
  assert.deepEqual(values('email'), ['b@x.com', 'b2@x.com', 'b3@x.com']);
  assert.deepEqual(values('adr'), [['', '', '', 'Boston', '', '02134', '']]);
  assert.deepEqual(values('note'), ['nota']);

  const off = await runTool(tool, [await workbook([titles, row])], { 'auto-detect': false, email: 'Email, 7', 'last-name': ['Surname'] });
  const [only] = parsed(textOf(off.files[0].bytes));
  assert.deepEqual(only.map((p) => p[0]), ['version', 'fn', 'n', 'email', 'email']);
  assert.equal(only[1][2], 'Brown');

  // `Nombre` is the full name when no last-name column is found.
  const full = await runTool(tool, [await workbook([['Nombre', 'Tel'], ['Ana Muñoz', '1']])]);
  assert.ok(textOf(full.files[0].bytes).includes('FN:Ana Muñoz\r\nN:;;;;\r\n'));
});

test('excel-to-vcard: rows skipped and values left out are counted', async () => {
  const out = await runTool(tool, [
    await workbook([
      ['Nombre', 'Apellidos', 'Ciudad', 'Cumpleaños', 'Teléfono'],
      ['Ana', 'Ruiz', null, 'mañana', null],
      [null, null, null, null, null],
      [null, null, 'Sevilla', null, null],
      [null, null, null, '31/02/2000', '600'],
      [null, null, null, d(2001, 2, 3), 700],
    ]),
  ]);
  assert.equal(parsed(textOf(out.files[0].bytes)).length, 3);
  const texts = out.messages.map((m) => `${m.level}: ${m.text}`);
  assert.ok(texts.includes('warning: 1 fila(s) no tienen nombre, empresa, correo ni teléfono y no pueden ser un contacto: se han omitido; la primera es la fila 4.'), JSON.stringify(texts));
  assert.ok(texts.includes('warning: Se han omitido 2 cumpleaños que no son una fecha (dd/mm/aaaa o aaaa-mm-dd); el primero en la fila 2: "mañana".'), JSON.stringify(texts));
  assert.ok(texts.includes('info: Se han omitido 1 fila(s) con todas las celdas asignadas vacías.'), JSON.stringify(texts));
  assert.ok(textOf(out.files[0].bytes).includes('FN:700\r\nN:;;;;\r\nTEL;TYPE=VOICE:700\r\nBDAY:2001-02-03\r\n'));
});

test('excel-to-vcard: one file per contact, named after FN', async () => {
  const out = await runTool(tool, [await workbook([['Nombre completo', 'Email'], ['Ana / Ruiz', 'a@x'], ['Ana / Ruiz', 'b@x'], [null, 'c@x']])], { output: 'files' });
  assert.deepEqual(out.files.map((f) => f.name), ['Ana _ Ruiz.vcf', 'Ana _ Ruiz (2).vcf', 'c@x.vcf']);
  for (const f of out.files) assert.equal(parsed(textOf(f.bytes)).length, 1);
  const many = inputFile('muchos.csv', `Email\r\n${Array.from({ length: 10_001 }, (_, i) => `c${i}@x`).join('\r\n')}\r\n`);
  await rejectsWith(runTool(tool, [many], { output: 'files' }), 'invalid_option', { option: 'output' });
  const single = await runTool(tool, [many]);
  assert.equal(parsed(textOf(single.files[0].bytes)).length, 10_001);
});

test('excel-to-vcard: errors name the option', async () => {
  await rejectsWith(runTool(tool, [await workbook([['Ciudad', 'Notas'], ['Madrid', 'x']])]), 'invalid_option', { option: 'full-name' });
  await rejectsWith(runTool(tool, [await workbook([['Nombre', 'Email'], ['Ana', 'a@x']])], { 'auto-detect': false }), 'invalid_option', { option: 'full-name' });
  await rejectsWith(runTool(tool, [await workbook([['Nombre', 'Email'], ['Ana', 'a@x']])], { org: 'Nombre', 'full-name': 1 }), 'invalid_option', { option: 'org' });
  await rejectsWith(runTool(tool, [await workbook([['Nombre', 'Email'], ['Ana', 'a@x']])], { email: 'Correo' }), 'invalid_option', { option: 'email' });
  await rejectsWith(runTool(tool, [await workbook([['A', 'B', 'C', 'D'], ['x', 'y', 'z', 'w']])], { 'last-name': 'A,B,C,D' }), 'invalid_option', { option: 'last-name' });
  await rejectsWith(runTool(tool, [await workbook([['Nombre'], ['Ana']])], { version: '2.1' }), 'invalid_option', { option: 'version' });
});
