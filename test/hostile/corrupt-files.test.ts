// Corrupt and mislabelled files, through JSON, multipart and MCP against the job processes: every one is a
// clean 400 invalid_file naming the file (413 where a limit is the cause), never a 500, never a hang.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { fixture, inputFile } from '../helpers/run-tool.ts';
import { assertRefusedEverywhere, sendEverywhere, hostileSuite } from './harness.ts';
import { rawZip, workbookParts, xlsxOf, zipParts } from './packages.ts';

// A short job limit: a parser that loops on one of these files is stopped in 3 s, not 60.
const suite = hostileSuite({ MAX_JOBS: '2', JOB_TIMEOUT_S: '3', JOB_MEMORY_MB: '256' });

/** Deterministic pseudo-random bytes. */
function noise(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const SECRET = 'CONTENIDO-SECRETO-4711';
const xlsx = fixture('ventas.xlsx').bytes;
const xls = fixture('ventas.xls').bytes;

const invalid = async (tool: string, name: string, bytes: Uint8Array, secrets: string[] = []) => {
  const field = tool.startsWith('merge-') ? 'files' : 'file';
  const files = field === 'files' ? [inputFile(name, bytes), fixture('ventas.csv')] : [inputFile(name, bytes)];
  const answers = await sendEverywhere(suite.srv, tool, files);
  assertRefusedEverywhere(answers, 'invalid_file', { option: field, secrets });
  for (const a of answers) assert.ok(a.body.message.includes(name), `${a.via}: the message names the file`);
};

test('corrupt: a truncated .xlsx (half, and all but its last 100 bytes) is invalid_file', async () => {
  await invalid('split-rows', 'mitad.xlsx', xlsx.subarray(0, xlsx.length >> 1));
  await invalid('flatten-sheets', 'casi.xlsx', xlsx.subarray(0, xlsx.length - 100));
});

test('corrupt: a truncated .xls is invalid_file', async () => {
  await invalid('split-rows', 'mitad.xls', xls.subarray(0, xls.length >> 1));
  await invalid('split-sheets', 'cabecera.xls', xls.subarray(0, 600));
});

test('corrupt: random bytes named .xlsx, with and without a ZIP signature, are invalid_file', async () => {
  await invalid('split-rows', 'ruido.xlsx', noise(4096, 7));
  const pk = noise(4096, 8);
  pk.set([0x50, 0x4b, 0x03, 0x04]);
  await invalid('split-sheets', 'ruido-pk.xlsx', pk);
  const ole = noise(4096, 9);
  ole.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  await invalid('split-rows', 'ruido-ole.xls', ole);
});

test('corrupt: a CSV named .xlsx or .xls is invalid_file and its content is not echoed', async () => {
  const csv = new TextEncoder().encode(`id,nota\n1,${SECRET}\n`);
  await invalid('split-rows', 'datos.xlsx', csv, [SECRET]);
  await invalid('merge-stack', 'datos.xls', csv, [SECRET]);
});

test('corrupt: a ZIP (a whole .xlsx) named .csv is invalid_file, not garbage presented as success', async () => {
  await invalid('split-rows', 'libro.csv', xlsxOf([{ name: 'Hoja1', rows: [['id'], [SECRET]] }]), [SECRET]);
});

test('corrupt: an empty file and a file that is only a BOM are invalid_file, whatever the extension', async () => {
  await invalid('split-rows', 'vacio.csv', new Uint8Array(0));
  await invalid('split-rows', 'vacio.xlsx', new Uint8Array(0));
  await invalid('split-rows', 'bom.csv', new Uint8Array([0xef, 0xbb, 0xbf]));
  await invalid('split-rows', 'bom16.csv', new Uint8Array([0xff, 0xfe]));
  await invalid('split-rows', 'bom.xlsx', new Uint8Array([0xef, 0xbb, 0xbf]));
});

test('corrupt: a sheet whose deflate stream is damaged is invalid_file (or stopped by the job limit), not a hang', async () => {
  const parts = workbookParts([{ name: 'Hoja1', rows: [['a', 'b'], [1, 2]] }]);
  const entries = Object.entries(parts).map(([name, data]) => ({ name, data }));
  // The sheet's compressed bytes are replaced by noise that claims to be deflate.
  const sheet = entries.findIndex((e) => e.name.endsWith('sheet1.xml'));
  const real = deflateRawSync(Buffer.from(String(entries[sheet].data)));
  const broken = noise(real.length, 11);
  const zip = rawZip(entries.map((e, i) => (i === sheet ? { ...e, deflated: { bytes: broken, size: String(e.data).length, crc: 0 } } : e)));
  const answers = await sendEverywhere(suite.srv, 'split-rows', [inputFile('roto.xlsx', zip)]);
  for (const a of answers) assert.ok(a.body.error === 'invalid_file' || a.body.error === 'too_complex', `${a.via}: ${JSON.stringify(a.body)}`);
  assertRefusedEverywhere(
    answers.filter((a) => a.body.error === 'invalid_file'),
    'invalid_file',
    { option: 'file' },
  );
});

test('corrupt: a package without a workbook part, or with a workbook that is not XML, is invalid_file', async () => {
  const parts = workbookParts([{ name: 'Hoja1', rows: [['a'], [1]] }]);
  const { ['xl/workbook.xml']: _drop, ...noWorkbook } = parts;
  await invalid('split-rows', 'sin-libro.xlsx', zipParts(noWorkbook));
  await invalid('split-sheets', 'libro-roto.xlsx', zipParts({ ...parts, 'xl/workbook.xml': `\u0000\u0001${SECRET}<<<` }), [SECRET]);
  await invalid('split-rows', 'zip-vacio.xlsx', zipParts({}));
});
