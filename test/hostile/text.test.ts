// Text edge cases in CSV input, through JSON, multipart and MCP against the job processes: a 20 MB line (50 MB
// with a raised input bound), 100,000 columns, invalid UTF-8, UTF-16 with and without BOM, unbalanced
// quotes, NUL bytes. Each ends in a clear error or a correct result, checked value by value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inputFile } from '../helpers/run-tool.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';
import { assertOkEverywhere, assertRefusal, assertRefusedEverywhere, sendDownload, sendEverywhere, type Answer, hostileSuite, startHostile } from './harness.ts';

const suite = hostileSuite({ MAX_JOBS: '2', JOB_TIMEOUT_S: '30', JOB_MEMORY_MB: '1024' });

const csvOf = (a: Answer, i = 0) => Buffer.from(a.via === 'mcp' ? a.resources![i].blob : a.body.files[i].contentBase64, 'base64').toString('utf8');
const texts = (a: Answer) => a.body.messages.map((m: { level: string; text: string }) => `${m.level}: ${m.text}`).join('\n');

/** The CSV the service writes for these rows: BOM, comma, CRLF, RFC 4180 quotes. */
const expectedCsv = (rows: string[][]) => '\uFEFF' + rows.map((r) => r.map((f) => (/[",\r\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f)).join(',')).join('\r\n') + '\r\n';

test('text: one CSV line of 20 MB is a clear 413 inline and the exact same text with download=true', async () => {
  const field = 'x'.repeat(10 * 2 ** 20);
  const csv = `a,b\r\n${field},${field}\r\n`;
  const file = inputFile('linea.csv', csv);
  // Inline, a 20 MB result does not fit the 8 MB of JSON: a clear refusal saying to use download=true.
  assertRefusedEverywhere(await sendEverywhere(suite.srv, 'split-rows', [file], { format: 'csv' }), 'result_too_large');
  // As xlsx, a 10 MB cell does not fit the format (32,767 characters): never truncated.
  assertRefusedEverywhere(await sendEverywhere(suite.srv, 'split-rows', [file], { format: 'xlsx' }, ['json', 'mcp']), 'format_limit_exceeded');
  for (const via of ['json', 'multipart'] as const) {
    const res = await sendDownload(suite.srv, via, 'split-rows', [file], { format: 'csv' });
    assert.equal(res.status, 200, via);
    assert.equal(Buffer.from(res.bytes).toString('utf8'), '\uFEFF' + csv, `${via}: the line comes back whole`);
  }
});

test('text: one CSV line of 50 MB, with MAX_INPUT_MB raised to 60, comes back whole with download=true', async () => {
  const big = await startHostile({ MAX_JOBS: '1', JOB_TIMEOUT_S: '60', MAX_INPUT_MB: '60', MAX_RESULT_MB: '120' });
  try {
    const csv = `nota\r\n${'ñ'.repeat(25 * 2 ** 20)}\r\n`;
    const res = await sendDownload(big, 'multipart', 'split-rows', [inputFile('enorme.csv', csv)], { format: 'csv' });
    assert.equal(res.status, 200);
    assert.ok(Buffer.from(res.bytes).toString('utf8') === '\uFEFF' + csv, 'the 50 MB line is returned unchanged');
    // Past the bound (60 MB) it is refused before any work: 413 input_too_large.
    const over = await sendDownload(big, 'multipart', 'split-rows', [inputFile('demasiado.csv', 'x'.repeat(61 * 2 ** 20))], { format: 'csv' });
    assert.equal(over.status, 413);
    assert.equal(JSON.parse(Buffer.from(over.bytes).toString()).error, 'input_too_large');
  } finally {
    await big.close();
  }
});

test('text: a row of 100,000 columns is format_limit_exceeded as xlsx and exact as csv', async () => {
  const header = Array.from({ length: 100_000 }, (_, i) => `c${i}`);
  const row = Array.from({ length: 100_000 }, (_, i) => String(i));
  const file = inputFile('ancho.csv', `${header.join(',')}\n${row.join(',')}\n`);
  assertRefusedEverywhere(await sendEverywhere(suite.srv, 'split-rows', [file]), 'format_limit_exceeded');
  for (const a of assertOkEverywhere(await sendEverywhere(suite.srv, 'split-rows', [file], { format: 'csv' }))) {
    assert.equal(csvOf(a), expectedCsv([header, row]), a.via);
  }
});

test('text: invalid UTF-8 is read as Windows-1252, as the spec says, and the answer says so', async () => {
  // "Año,café,€" in Windows-1252: 0xF1, 0xE9 and 0x80 are not valid UTF-8.
  const bytes = new Uint8Array([0x41, 0xf1, 0x6f, 0x2c, 0x63, 0x61, 0x66, 0xe9, 0x2c, 0x80, 0x0a, 0x31, 0x2c, 0x32, 0x2c, 0x33, 0x0a]);
  for (const a of assertOkEverywhere(await sendEverywhere(suite.srv, 'split-rows', [inputFile('latin.csv', bytes)], { format: 'csv' }))) {
    assert.equal(csvOf(a), '\uFEFFAño,café,€\r\n1,2,3\r\n', a.via);
    assert.match(texts(a), /info: .*latin\.csv.*Windows-1252/, a.via);
  }
});

test('text: UTF-16 with a BOM (LE and BE) and without one (LE, BE) reads as the same table', async () => {
  const text = 'nombre,ciudad\nPeña,Málaga\nZoë,A Coruña\n';
  const le = Buffer.from(text, 'utf16le');
  const be = Buffer.from(le).swap16();
  const variants = {
    'le-bom.csv': Buffer.concat([Buffer.from([0xff, 0xfe]), le]),
    'be-bom.csv': Buffer.concat([Buffer.from([0xfe, 0xff]), be]),
    'le.csv': le,
    'be.csv': be,
  };
  for (const [name, bytes] of Object.entries(variants)) {
    const answers = assertOkEverywhere(await sendEverywhere(suite.srv, 'split-rows', [inputFile(name, new Uint8Array(bytes))]));
    for (const a of answers) assert.deepEqual(a.body.preview.rows, [['Peña', 'Málaga'], ['Zoë', 'A Coruña']], `${name} ${a.via}`);
    const [sheet] = await readXlsx(Buffer.from(answers[0].body.files[0].contentBase64, 'base64'));
    assert.deepEqual(sheet.rows, [['nombre', 'ciudad'], ['Peña', 'Málaga'], ['Zoë', 'A Coruña']], `${name}: exceljs reads the same`);
  }
});

test('text: a quote that never closes is read as a plain character, with a warning naming its line', async () => {
  const csv = 'id,nota\n1,"bien ""citada"""\n2,"sin cerrar\n3,normal\n';
  for (const a of assertOkEverywhere(await sendEverywhere(suite.srv, 'split-rows', [inputFile('comillas.csv', csv)], { format: 'csv' }))) {
    assert.match(texts(a), /warning: .*comillas\.csv.*línea 3/, a.via);
    assert.equal(csvOf(a), expectedCsv([['id', 'nota'], ['1', 'bien "citada"'], ['2', '"sin cerrar'], ['3', 'normal']]), a.via);
  }
});

test('text: a NUL byte in a CSV that is not UTF-16 is invalid_file (the file is binary)', async () => {
  const bytes = new Uint8Array([...new TextEncoder().encode('a,b\n1,'), 0, ...new TextEncoder().encode('2\n')]);
  assertRefusedEverywhere(await sendEverywhere(suite.srv, 'split-rows', [inputFile('nulo.csv', bytes)]), 'invalid_file', { option: 'file' });
});

test('text: a title of 100,000 characters and a field full of delimiters and line breaks survive csv exactly', async () => {
  const title = 'T'.repeat(100_000);
  const nasty = '",\r\n;\t|"'.repeat(1000);
  const file = inputFile('raro.csv', expectedCsv([[title, 'b'], [nasty, 'x']]));
  for (const a of assertOkEverywhere(await sendEverywhere(suite.srv, 'split-rows', [file], { format: 'csv' }))) {
    assert.equal(csvOf(a), expectedCsv([[title, 'b'], [nasty, 'x']]), a.via);
  }
  // As xlsx a 100,000-character title does not fit a cell: refused, never cut.
  const [a] = await sendEverywhere(suite.srv, 'split-rows', [file], {}, ['json']);
  assertRefusal(a, 'format_limit_exceeded');
});
