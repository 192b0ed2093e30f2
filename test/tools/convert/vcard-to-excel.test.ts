// vcard-to-excel: the contacts of real exports (vCard 2.1 with quoted-printable and charsets, 3.0, 4.0; groups,
// folding, escapes) into rows, round trips from excel-to-vcard re-read with openpyxl, and hostile files (a 1 MB
// photo, a value folded over 100,000 lines, 20,000 cards, no card at all).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import excelToVcard from '../../../tools/convert/excel-to-vcard.ts';
import tool from '../../../tools/convert/vcard-to-excel.ts';
import type { Cell } from '../../../tools/formats/model.ts';
import { readWithOpenpyxl } from '../../helpers/openpyxl-cells.ts';
import { d } from '../../helpers/read-xlsx.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { textOf } from '../../helpers/typed-titles.ts';

const vcf = (text: string, name = 'contactos.vcf') => inputFile(name, text);
const crlf = (lines: string[]) => lines.join('\r\n') + '\r\n';

async function sheet(text: string | Uint8Array, options: Record<string, unknown> = {}) {
  const out = await runTool(tool, [inputFile('contactos.vcf', text)], options);
  const [s] = readWithOpenpyxl(out.files[0].bytes);
  return { ...out, sheet: s, texts: out.messages.map((m) => `${m.level}: ${m.text}`) };
}

test('vcard-to-excel: excel-to-vcard 3.0 and 4.0 come back cell for cell (openpyxl)', async () => {
  const titles = ['Nombre', 'Apellidos', 'Empresa', 'Teléfono', 'Móvil', 'Móvil 2', 'Email', 'Dirección', 'Ciudad', 'CP', 'País', 'Cumpleaños', 'Web', 'Notas'];
  const rows: Cell[][] = [
    ['José', 'Pérez García', 'Acme; S.L.', '912 345 678', '600111222', '+34 611', 'jose@acme.es', 'C/ Mayor, 1', 'Madrid', '08001', 'España', d(1985, 4, 12), 'https://acme.es/?a=1;b=2', 'línea 1\nlínea 2 \\ ; , fin 😀 ' + 'ñ'.repeat(80)],
    ['Ana', null, null, null, null, null, 'ana@x.es', null, null, null, null, null, null, null],
  ];
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Hoja');
  for (const r of [titles, ...rows]) ws.addRow(r);
  const input = inputFile('agenda.xlsx', new Uint8Array(await wb.xlsx.writeBuffer()));
  for (const version of ['3.0', '4.0']) {
    const cards = await runTool(excelToVcard, [input], { version });
    const out = await sheet(cards.files[0].bytes);
    assert.equal(out.sheet.name, 'Contactos');
    assert.deepEqual(out.sheet.rows, [
      ['Nombre completo', 'Nombre', 'Apellidos', 'Empresa', 'Teléfono', 'Teléfono (móvil)', 'Teléfono (móvil) 2', 'Email', 'Dirección', 'Ciudad', 'Código postal', 'País', 'Cumpleaños', 'Web', 'Notas'],
      ['José Pérez García', ...rows[0]],
      ['Ana', 'Ana', null, null, null, null, null, 'ana@x.es', null, null, null, null, null, null, null],
    ], version);
    assert.ok(out.texts.includes('info: Se han leído 2 contacto(s) en 15 columna(s).'), JSON.stringify(out.texts));
  }
});

test('vcard-to-excel: vCard 2.1 with quoted-printable, charsets, nameless parameters, groups and junk', async () => {
  const text = crlf([
    'Exportado por un teléfono',
    'BEGIN:VCARD',
    'VERSION:2.1',
    'N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:P=C3=A9rez;Jos=C3=A9;;Sr.;',
    'FN;ENCODING=QUOTED-PRINTABLE;CHARSET=UTF-8:Jos=C3=A9 P=C3=A9=',
    'rez',
    'NOTE;ENCODING=QUOTED-PRINTABLE;CHARSET=ISO-8859-1:Se=F1or=0D=0Afin',
    'TEL;CELL;HOME:+34 600',
    'TEL;WORK;VOICE:91 000',
    'TEL;FAX:91 001',
    'item1.EMAIL;TYPE=INTERNET,WORK:jose@trabajo.es',
    'item1.X-ABLabel:oficina',
    'ORG:Acme;Ventas;Sur',
    'END:VCARD',
    'BEGIN:VCARD',
    'VERSION:3.0',
    'FN:Ana',
    'ADR;TYPE=HOME:;;Calle 1\\, 2;Sevilla;;41001;España',
    'ADR;TYPE=WORK:Apdo. 5;;Polígono;Dos Hermanas;Sevilla;41700;España',
    'BDAY:--0412',
    'ANNIVERSARY:20100605',
    'CATEGORIES:amigos,trabajo\\, viejo',
    'NICKNAME:Anita',
    'TITLE:Jefa',
    'ROLE:Ventas',
    'URL:https://ana.es',
    'PHOTO;ENCODING=b;TYPE=JPEG:AAAA',
    ' BBBB',
    'X-SOCIAL;TYPE=x:@ana',
    'BEGIN:VCARD',
    'version:4.0',
    'fn:Sin cierre',
    'tel;type="cell,voice":+1',
    'tel;type=cell:+2',
  ]);
  const out = await sheet(text);
  assert.deepEqual(out.sheet.rows, [
    ['Nombre completo', 'Nombre', 'Apellidos', 'Tratamiento', 'Apodo', 'Empresa', 'Departamento', 'Cargo', 'Función', 'Teléfono (móvil)', 'Teléfono (móvil) 2', 'Teléfono (trabajo)', 'Fax', 'Email (trabajo)', 'Dirección (trabajo)', 'Ciudad (trabajo)', 'Provincia (trabajo)', 'Código postal (trabajo)', 'País (trabajo)', 'Dirección (casa)', 'Ciudad (casa)', 'Código postal (casa)', 'País (casa)', 'Cumpleaños', 'Aniversario', 'Web', 'Notas', 'Categorías', 'X-ABLabel', 'X-SOCIAL'],
    ['José Pérez', 'José', 'Pérez', 'Sr.', null, 'Acme', 'Ventas; Sur', null, null, '+34 600', null, '91 000', '91 001', 'jose@trabajo.es', null, null, null, null, null, null, null, null, null, null, null, null, 'Señor\r\nfin', null, 'oficina', null],
    ['Ana', null, null, null, 'Anita', null, null, 'Jefa', 'Ventas', null, null, null, null, null, 'Apdo. 5, Polígono', 'Dos Hermanas', 'Sevilla', '41700', 'España', 'Calle 1, 2', 'Sevilla', '41001', 'España', '--0412', d(2010, 6, 5), 'https://ana.es', null, 'amigos, trabajo, viejo', null, '@ana'],
    ['Sin cierre', null, null, null, null, null, null, null, null, '+1', '+2', null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null],
  ]);
  for (const t of [
    'warning: Se han leído 2 tarjeta(s) sin END:VCARD hasta el siguiente BEGIN:VCARD o el final del archivo.',
    'info: Se han ignorado 1 línea(s) fuera de BEGIN:VCARD … END:VCARD.',
    'info: No se han escrito 1 foto(s), logotipo(s), sonido(s) o clave(s) (no son datos de tabla).',
  ]) assert.ok(out.texts.includes(t), `${t} in ${JSON.stringify(out.texts)}`);
  const en = await sheet(text, { language: 'en' });
  assert.equal(en.sheet.name, 'Contacts');
  assert.deepEqual(en.sheet.rows[0].slice(0, 4), ['Full name', 'First name', 'Last name', 'Prefix']);
});

test('vcard-to-excel: escapes, folding, windows-1252 files, a BOM, and a line that cannot be read', async () => {
  const text = crlf(['\ufeffBEGIN:VCARD', 'VERSION:3.0', 'FN:a\\, b\\; c\\\\n d\\n e\\N f', 'NOTE:plegado en ', '  dos líneas', 'X-RARO', 'END:VCARD']);
  const out = await sheet(text);
  assert.deepEqual(out.sheet.rows, [['Nombre completo', 'Notas'], ['a, b; c\\n d\n e\n f', 'plegado en  dos líneas']]);
  assert.ok(out.texts.includes('warning: Se han omitido 1 línea(s) de tarjetas que no se pueden leer como propiedades; la primera en la línea 6.'), JSON.stringify(out.texts));
  const latin = Buffer.from('BEGIN:VCARD\nVERSION:3.0\nFN:Mu\xf1oz\nEND:VCARD\n', 'latin1');
  assert.deepEqual((await sheet(new Uint8Array(latin))).sheet.rows, [['Nombre completo'], ['Muñoz']]);
  const csv = await runTool(tool, [vcf('BEGIN:VCARD\r\nFN:Ana\r\nTEL:00123\r\nEND:VCARD\r\n', 'x.vcard')], { format: 'csv' });
  assert.deepEqual(csv.files.map((f) => f.name), ['x.csv']);
  assert.equal(textOf(csv.files[0].bytes), '\ufeffNombre completo,Teléfono\r\nAna,00123\r\n');
});

test('vcard-to-excel: hostile files: a 1 MB photo, a value folded over 100,000 lines, 20,000 cards, no card', async () => {
  const photo = Buffer.alloc(1024 * 1024, 7).toString('base64');
  const folded = photo.match(/.{1,74}/g)!.join('\r\n ');
  const big = await sheet(crlf(['BEGIN:VCARD', 'VERSION:3.0', 'FN:Foto', `PHOTO;ENCODING=b;TYPE=JPEG:${folded}`, 'LOGO;VALUE=uri:https://example.invalid/logo.png', 'END:VCARD']));
  assert.deepEqual(big.sheet.rows, [['Nombre completo'], ['Foto']]);
  assert.ok(big.texts.includes('info: No se han escrito 2 foto(s), logotipo(s), sonido(s) o clave(s) (no son datos de tabla).'));

  const note = 'ñ'.repeat(100_000);
  const oneCharLines = [...note].join('\r\n ');
  const long = await runTool(tool, [vcf(crlf(['BEGIN:VCARD', 'FN:Largo', `NOTE:${oneCharLines}`, 'END:VCARD']))], { format: 'csv' });
  assert.ok(textOf(long.files[0].bytes) === `\ufeffNombre completo,Notas\r\nLargo,${note}\r\n`, 'the folded value is read whole');

  // LF line ends alone (no CR anywhere): the line splitter must not look for a CR once per line.
  const many = Array.from({ length: 20_000 }, (_, i) => `BEGIN:VCARD\nVERSION:4.0\nFN:C${i}\nEMAIL:c${i}@x\nEND:VCARD\n`).join('');
  const all = await runTool(tool, [vcf(many)], { format: 'csv' });
  const lines = textOf(all.files[0].bytes).split('\r\n');
  assert.equal(lines.length, 20_002);
  assert.equal(lines[20_000], 'C19999,c19999@x');

  await rejectsWith(runTool(tool, [vcf('FN:Ana\r\nEND:VCARD\r\n')]), 'invalid_file', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('x.vcf', new Uint8Array([66, 69, 0, 71]))]), 'invalid_file');
  await rejectsWith(runTool(tool, [inputFile('x.txt', 'BEGIN:VCARD\r\nEND:VCARD\r\n')]), 'unsupported_format');
});
