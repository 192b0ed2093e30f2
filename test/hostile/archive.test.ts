// Archive and XML attacks inside .xlsx, sent through JSON, multipart and MCP against the job processes.
// The packages are made here (fflate for honest ZIPs, hand-written bytes for lying ones). Contract:
// bombs (inflate ratio or total past the bounds) and sheets past MAX_CELLS → 413 too_complex; thousands of
// entries, duplicate names, overlapping entries, a lying central directory, DOCTYPE/ENTITY → 400
// invalid_file; entries nothing references are never inflated; a dimension that lies is ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { inputFile } from '../helpers/run-tool.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';
import { assertOkEverywhere, assertRefusedEverywhere, sendEverywhere, type Answer, hostileSuite } from './harness.ts';
import { rawEntriesOf, rawZip, sheetXml, whitespaceBombSheet, workbookParts, xlsxOf, zipParts, type XSheet } from './packages.ts';

const MAX_CELLS = 5000;
const suite = hostileSuite({ MAX_JOBS: '2', JOB_TIMEOUT_S: '10', JOB_MEMORY_MB: '512', MAX_CELLS: String(MAX_CELLS) });

const small: XSheet = { name: 'Hoja1', rows: [['id', 'nombre'], [1, 'Ana'], [2, 'Íñigo']] };
const refused = async (name: string, bytes: Uint8Array, code: 'invalid_file' | 'too_complex', tool = 'split-rows') => {
  const answers = await sendEverywhere(suite.srv, tool, [inputFile(name, bytes)]);
  assertRefusedEverywhere(answers, code, code === 'invalid_file' ? { option: 'file' } : {});
  return answers;
};
/** The CSV text of a one-file split-rows result, read from the JSON answer or the MCP resource. */
const csvOf = (a: Answer) => Buffer.from(a.via === 'mcp' ? a.resources![0].blob : a.body.files[0].contentBase64, 'base64').toString('utf8').replace(/^\uFEFF/, '');

test('archive: a sheet that inflates past the ratio bound (whitespace at ~1000:1) is 413 too_complex', async () => {
  const bomb = await whitespaceBombSheet(300);
  const parts = rawEntriesOf(workbookParts([small]));
  const zip = rawZip(parts.map((e) => (e.name === 'xl/worksheets/sheet1.xml' ? { ...e, data: undefined, deflated: bomb } : e)));
  assert.ok(zip.length < 1_000_000 && bomb.size / bomb.bytes.length > 900, 'a real bomb: under 1 MB, over 900:1');
  await refused('bomba.xlsx', zip, 'too_complex');
});

test('archive: several referenced sheets that together inflate past the total bound are 413 too_complex', async () => {
  const bomb = await whitespaceBombSheet(120);
  const sheets = Array.from({ length: 8 }, (_, i) => ({ ...small, name: `Hoja${i + 1}` }));
  const parts = rawEntriesOf(workbookParts(sheets));
  const zip = rawZip(parts.map((e) => (/sheet\d\.xml$/.test(e.name) ? { ...e, data: undefined, deflated: bomb } : e)));
  await refused('bombas.xlsx', zip, 'too_complex', 'split-sheets');
});

test('archive: an honest sheet of repeated values at over 300:1 still converts, every row kept', async () => {
  const cell = `<c t="inlineStr"><is><t>${'-'.repeat(1000)}</t></is></c>`;
  // 900 rows × 5 cells stay under this server's MAX_CELLS; each cell is 1,000 dashes.
  const rows = 900;
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${`<row>${cell.repeat(5)}</row>`.repeat(rows)}</sheetData></worksheet>`;
  const zip = xlsxOf([small], { 'xl/worksheets/sheet1.xml': xml });
  const ratio = xml.length / zip.length;
  assert.ok(ratio > 300, `honest ratio ${ratio.toFixed(0)}:1`);
  const answers = assertOkEverywhere(await sendEverywhere(suite.srv, 'split-rows', [inputFile('guiones.xlsx', zip)], { 'rows-per-file': 1_000_000 }));
  for (const a of answers) {
    assert.equal(a.body.preview.totalRows, rows - 1, `${a.via}: every row but the titles`);
    assert.equal(a.body.preview.rows[0][4], '-'.repeat(1000));
  }
});

test('archive: an unreferenced entry is never inflated: a bomb beside a valid workbook does not stop it', async () => {
  const bomb = await whitespaceBombSheet(300);
  const zip = rawZip([...rawEntriesOf(workbookParts([small])), { name: 'xl/media/nada.bin', deflated: bomb }]);
  const answers = assertOkEverywhere(await sendEverywhere(suite.srv, 'split-rows', [inputFile('con-polizon.xlsx', zip)], { format: 'csv' }));
  for (const a of answers) assert.equal(csvOf(a), 'id,nombre\r\n1,Ana\r\n2,Íñigo\r\n');
});

test('archive: thousands of entries is 400 invalid_file', async () => {
  const filler = Array.from({ length: 20_000 }, (_, i) => ({ name: `xl/relleno/${i}.xml`, data: '', method: 0 as const }));
  await refused('miles.xlsx', rawZip([...rawEntriesOf(workbookParts([small])), ...filler]), 'invalid_file');
});

test('archive: two entries with the same name are 400 invalid_file', async () => {
  const entries = rawEntriesOf(workbookParts([small]));
  const other = sheetXml({ rows: [['otra'], ['hoja']] });
  await refused('duplicada.xlsx', rawZip([...entries, { name: 'xl/worksheets/sheet1.xml', data: other }]), 'invalid_file');
});

test('archive: two directory records over one local entry (overlapping entries) are 400 invalid_file', async () => {
  const sheets = [small, { ...small, name: 'Hoja2' }];
  const entries = rawEntriesOf(workbookParts(sheets)).filter((e) => e.name !== 'xl/worksheets/sheet2.xml');
  const target = entries.findIndex((e) => e.name === 'xl/worksheets/sheet1.xml');
  await refused('solapada.xlsx', rawZip(entries, { aliases: [{ target, name: 'xl/worksheets/sheet2.xml' }] }), 'invalid_file', 'split-sheets');
});

test('archive: a central directory that lies is 400 invalid_file', async (t) => {
  const entries = rawEntriesOf(workbookParts([small]));
  const sheet = entries.findIndex((e) => e.name === 'xl/worksheets/sheet1.xml');
  const lies: Record<string, Uint8Array> = {
    'local and central names differ': rawZip(entries.map((e, i) => (i === sheet ? { ...e, localName: 'xl/worksheets/otra.xml' } : e))),
    'uncompressed size claimed far below the real one': rawZip(entries.map((e, i) => (i === sheet ? { ...e, claim: { uncompressed: 10 } } : e))),
    'compressed size past the end of the file': rawZip(entries.map((e, i) => (i === sheet ? { ...e, claim: { compressed: 50_000_000 } } : e))),
    'directory offset pointing into the data': rawZip(entries, { claimedCdOffset: 7 }),
    'more entries claimed than written': rawZip(entries, { claimedCount: entries.length + 3 }),
  };
  for (const [what, zip] of Object.entries(lies)) await t.test(what, async () => {
      await refused('mentirosa.xlsx', zip, 'invalid_file');
    });
});

const laughs = () => {
  const defs = ['<!ENTITY lol "lol">'];
  for (let i = 1; i <= 9; i++) defs.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
  return `<!DOCTYPE worksheet [${defs.join('')}]>`;
};

test('archive: a DOCTYPE with entity expansion (billion laughs) in the sheet is 400 invalid_file', async () => {
  const xml = sheetXml({ rows: [['a'], ['LAUGH']] }).replace('<worksheet', `${laughs()}<worksheet`).replace('LAUGH', '&lol9;');
  await refused('risas.xlsx', xlsxOf([small], { 'xl/worksheets/sheet1.xml': xml }), 'invalid_file');
});

test('archive: an external file:// entity in the workbook or a sheet is 400 invalid_file and never read', async () => {
  const dtd = '<!DOCTYPE worksheet [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>';
  const xml = sheetXml({ rows: [['a'], ['XXE']] }).replace('<worksheet', `${dtd}<worksheet`).replace('XXE', '&xxe;');
  const answers = await refused('xxe.xlsx', xlsxOf([small], { 'xl/worksheets/sheet1.xml': xml }), 'invalid_file');
  for (const a of answers) assert.ok(!JSON.stringify(a.body).includes('root:'), `${a.via}: /etc/passwd leaked`);
  const wb = String(workbookParts([small])['xl/workbook.xml']).replace('<workbook', '<!DOCTYPE workbook [<!ENTITY xxe SYSTEM "file:///etc/hostname">]><workbook').replace('Hoja1', '&xxe;');
  await refused('xxe-libro.xlsx', xlsxOf([small], { 'xl/workbook.xml': wb }), 'invalid_file');
});

test('archive: an external http:// entity is 400 invalid_file and nothing is fetched', async () => {
  let connections = 0;
  const listener: NetServer = createNetServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  try {
    const port = (listener.address() as { port: number }).port;
    const dtd = `<!DOCTYPE worksheet [<!ENTITY % remote SYSTEM "http://127.0.0.1:${port}/x.dtd"> %remote; <!ENTITY web SYSTEM "http://127.0.0.1:${port}/y">]>`;
    const xml = sheetXml({ rows: [['a'], ['WEB']] }).replace('<worksheet', `${dtd}<worksheet`).replace('WEB', '&web;');
    await refused('ssrf.xlsx', xlsxOf([small], { 'xl/worksheets/sheet1.xml': xml }), 'invalid_file');
    assert.equal(connections, 0, 'the service opened a connection to the entity URL');
  } finally {
    listener.close();
  }
});

test('archive: a dimension claiming A1:XFD1048576 over three cells gives those three cells', async () => {
  const zip = xlsxOf([{ name: 'Hoja1', rows: [['id'], [1], [2]], dimension: 'A1:XFD1048576' }]);
  const answers = assertOkEverywhere(await sendEverywhere(suite.srv, 'split-rows', [inputFile('dimension.xlsx', zip)]));
  for (const a of answers) {
    assert.deepEqual(a.body.preview.columns, ['id'], a.via);
    assert.deepEqual(a.body.preview.rows, [[1], [2]], a.via);
  }
  const bytes = Buffer.from(answers[0].body.files[0].contentBase64, 'base64');
  assert.deepEqual((await readXlsx(bytes))[0].rows, [['id'], [1], [2]], 'the written workbook holds the three cells (exceljs)');
});

test('archive: one real cell at XFD1048576 is a one-cell table, not a sheet of 17 billion cells', async () => {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="A1:XFD1048576"/><sheetData><row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t>lejos</t></is></c></row></sheetData></worksheet>`;
  const answers = assertOkEverywhere(await sendEverywhere(suite.srv, 'split-rows', [inputFile('esquina.xlsx', xlsxOf([small], { 'xl/worksheets/sheet1.xml': xml }))], { 'has-header': false, format: 'csv' }));
  for (const a of answers) assert.equal(csvOf(a), 'lejos\r\n', a.via);
});

test(`archive: a real sheet past MAX_CELLS (${MAX_CELLS}) is 413 too_complex; one at the bound converts`, async () => {
  const grid = (rows: number) => ({ name: 'Hoja1', rows: Array.from({ length: rows }, (_, r) => Array.from({ length: 50 }, (_, c) => r * 50 + c)) });
  assertOkEverywhere(await sendEverywhere(suite.srv, 'split-rows', [inputFile('justo.xlsx', xlsxOf([grid(MAX_CELLS / 50)]))]));
  await refused('excede.xlsx', xlsxOf([grid(MAX_CELLS / 50 + 1)]), 'too_complex');
});

test('archive: a package of only unrelated entries, or a ZIP of an .xlsx inside, is 400 invalid_file', async () => {
  await refused('ajeno.xlsx', zipParts({ 'leeme.txt': 'hola', 'datos/otra.csv': 'a,b\n1,2\n' }), 'invalid_file');
  await refused('matrioska.xlsx', zipParts({ 'dentro.xlsx': xlsxOf([small]) }), 'invalid_file');
});
