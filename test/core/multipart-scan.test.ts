// The multipart scanner (bridge/multipart-scan.ts) against busboy 1.6.0, the reader it replaces (kept as the
// reference in test/helpers/multipart-busboy.ts): seeded random forms, each fed in several cuttings, must give
// the same files, fields and refusals; hostile bodies get their codes; and where busboy's own answer depends on
// how the body was cut (or never comes), the scanner's is the same for every cutting and says so.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import type { Request } from 'express';
import { readMultipart, type MultipartLimits } from '../../bridge/multipart.ts';
import { MultipartScanner } from '../../bridge/multipart-scan.ts';
import { ToolError } from '../../tools/core/errors.ts';
import { readMultipartBusboy } from '../helpers/multipart-busboy.ts';

type Reader = typeof readMultipart;

/** An IncomingMessage as the readers use it: headers, chunks as they arrive, `complete` once the body has ended. */
class FakeRequest extends Readable {
  complete = false;
  httpVersion = '1.1';
  socket = { destroyed: true };
  constructor(readonly headers: Record<string, string>) {
    super({ read() {} });
  }
}

function requestOf(body: Buffer, chunks: number[], o: { boundary?: string | null; contentType?: string; length?: boolean; cut?: boolean } = {}): FakeRequest {
  const contentType = o.contentType ?? (o.boundary === null ? 'multipart/form-data' : `multipart/form-data; boundary=${o.boundary ?? 'b'}`);
  const headers: Record<string, string> = { 'content-type': contentType };
  if (o.length !== false) headers['content-length'] = String(body.length);
  const req = new FakeRequest(headers);
  let at = 0;
  for (const end of chunks) {
    req.push(body.subarray(at, end));
    at = end;
  }
  if (at < body.length) req.push(body.subarray(at));
  if (o.cut) {
    // The client goes away: the body never ends.
    setImmediate(() => req.destroy());
  } else {
    // As Node: complete once the last byte has arrived, which is when the body ends for its reader.
    req.prependListener('end', () => (req.complete = true));
    req.push(null);
  }
  return req;
}

type Outcome =
  | { ok: true; files: { name: string; field?: string; bytes: string }[]; fields: Record<string, unknown> }
  | { ok: false; code: string; key?: string; option?: string; params?: unknown };

async function outcome(read: Reader, req: FakeRequest, limits: MultipartLimits): Promise<Outcome> {
  try {
    const body = await read(req as unknown as Request, limits);
    const files = body.files.map((f) => ({ name: f.name, ...(f.field ? { field: f.field } : {}), bytes: Buffer.from(f.bytes).toString('hex') }));
    return { ok: true, files, fields: body.fields };
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    const { messageKey, option, params } = err.detail as { messageKey?: string; option?: string; params?: unknown };
    return { ok: false, code: err.code, key: messageKey, option, params };
  }
}

const LIMITS: MultipartLimits = { maxInputBytes: 6000, maxInputMb: 0.0057, maxFileParts: 3, maxDiscardBytes: Infinity };

/** Cut points: every chunk `size` bytes (1 = byte by byte). */
function every(size: number, length: number): number[] {
  const cuts = [];
  for (let at = size; at < length; at += size) cuts.push(at);
  return cuts;
}

/** Cut points that split every delimiter of the body (and its opening one) `offset` bytes into it. */
function throughDelimiters(body: Buffer, boundary: string, offset: number): number[] {
  const cuts = new Set<number>([offset]);
  const needle = Buffer.from(`\r\n--${boundary}`);
  for (let i = body.indexOf(needle); i >= 0; i = body.indexOf(needle, i + 1)) cuts.add(i + offset);
  return [...cuts].filter((c) => c > 0 && c < body.length).sort((a, b) => a - b);
}

function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BCHARS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=?";

/** One random form, as busboy or a browser would meet it, with at most one thing wrong with it. */
function randomForm(rand: () => number): { body: Buffer; boundary: string; contentType: string; what: string; reference?: Buffer } {
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(list: T[]): T => list[int(list.length)];
  const boundary = pick([
    () => '----WebKitFormBoundary' + Array.from({ length: 16 }, () => pick([...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789'])).join(''),
    () => 'b',
    () => '-',
    () => Array.from({ length: 1 + int(70) }, () => pick([...BCHARS])).join(''),
    () => '--' + 'x'.repeat(int(5)),
  ])();
  const quoted = rand() < 0.3 || /[()<>@,;:\\"/[\]?=]/.test(boundary);
  const contentType = `multipart/form-data; boundary=${quoted ? `"${boundary}"` : boundary}`;
  const delimiter = `\r\n--${boundary}`;
  const needle = Buffer.from(delimiter);
  // A part's content never holds its delimiter, nor begins with it less the CRLF that ends the part's header
  // (a sender picks a boundary that does not occur).
  const clean = (bytes: Buffer): Buffer => {
    for (let i = bytes.indexOf(needle); i >= 0; i = bytes.indexOf(needle)) bytes = Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + 1)]);
    while (bytes.subarray(0, needle.length - 2).equals(needle.subarray(2))) bytes = bytes.subarray(1);
    return bytes;
  };
  /** Random bytes that tempt a delimiter search: CR, LF, dashes, pieces of the boundary, its delimiter less a byte. */
  const content = (max: number): Buffer => {
    const out: Buffer[] = [];
    const n = int(max);
    let len = 0;
    while (len < n) {
      const piece = pick([
        () => Buffer.from([int(256)]),
        () => Buffer.from('\r\n'),
        () => Buffer.from('\r'),
        () => Buffer.from('\n'),
        () => Buffer.from('-'),
        () => Buffer.from('--'),
        () => Buffer.from(delimiter.slice(0, 1 + int(delimiter.length - 1))),
        () => Buffer.from(boundary.slice(int(boundary.length))),
        () => Buffer.from('a,b;c\n1,2;3\n'.repeat(1 + int(4))),
        () => Buffer.from('ñandú €'),
      ])();
      out.push(piece);
      len += piece.length;
    }
    let bytes = clean(Buffer.concat(out));
    // Ending with the delimiter less its last byte, right before the delimiter itself.
    if (rand() < 0.15) bytes = Buffer.concat([bytes, Buffer.from(delimiter.slice(0, -1))]);
    return bytes;
  };
  const filename = () =>
    pick([
      ['filename="data.csv"', 'data.csv'],
      ['filename="año ñ.csv"', 'año ñ.csv'],
      ['filename="quo\\"ted \\\\ name.csv"', ''],
      ['filename="C:\\\\dir\\\\win.csv"', ''],
      ['filename="/tmp/../x.xlsx"', ''],
      ["filename*=UTF-8''%C3%B1and%C3%BA.csv", ''],
      ["filename=\"fallback.csv\"; filename*=utf-8''r%C3%A9el.csv", ''],
      ["filename*=iso-8859-1'es'%F1.csv", ''],
      ['filename=token.csv', ''],
      ['filename="tab\there.csv"', ''],
    ])[0];
  const what = pick(['ok', 'ok', 'ok', 'ok', 'ok', 'files', 'fields', 'parts', 'large', 'fieldLong', 'noName', 'unknownFile', 'fileField', 'cut', 'badHeader', 'lf', 'padding', 'octet']);
  const parts: Buffer[] = [];
  const headerLines = (lines: string[]) => {
    // Header names in any case, an extra header, sometimes a folded line.
    const extra = rand() < 0.2 ? ['X-Extra: 1'] : [];
    return lines.concat(extra).map((l) => (rand() < 0.2 ? l.replace(/^Content-Disposition/, 'content-DISPOSITION') : l));
  };
  const part = (lines: string[], bytes: Buffer) => parts.push(Buffer.concat([Buffer.from(`--${boundary}\r\n${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bytes, Buffer.from('\r\n')]));
  const utf8Header = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
  let fileBytes = 0;
  // The one part that is wrong, for the kinds of wrong a part can be: busboy reports a file part's faults
  // after a later part's, so a form with two would have no single answer to compare.
  let wrong = ['noName', 'unknownFile', 'fileField'].includes(what);
  const once = () => (wrong ? ((wrong = false), true) : false);
  const fileCount = what === 'files' ? 4 : int(4);
  const fieldCount = what === 'fields' ? 101 : int(6);
  const order: ('file' | 'field' | 'skip')[] = [...Array(fileCount).fill('file'), ...Array(fieldCount).fill('field')];
  if (what === 'parts') order.push(...Array(104).fill('skip'));
  if (rand() < 0.3) order.push('skip');
  for (let i = order.length - 1; i > 0; i--) {
    const j = int(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  for (const kind of order) {
    if (kind === 'file') {
      const field = what === 'unknownFile' && once() ? 'attachment' : pick(['file', 'files', 'lookup-file']);
      let bytes = content(what === 'large' ? 9000 : 1500);
      if (what !== 'large' && fileBytes + bytes.length > LIMITS.maxInputBytes) bytes = bytes.subarray(0, 0);
      fileBytes += bytes.length;
      const name = what === 'noName' && once() ? 'filename=""' : filename();
      const ct = pick(['Content-Type: text/csv', 'Content-Type: application/octet-stream', 'Content-Type: application/vnd.ms-excel; charset=binary', null]);
      part(headerLines([utf8Header(`Content-Disposition: form-data; name="${field}"; ${name}`), ...(ct ? [ct] : [])]), bytes);
    } else if (kind === 'field') {
      const name = what === 'fileField' && once() ? 'file' : pick(['format', 'language', 'sheet', 'quo\\"te', 'año', 'columns']);
      const value = what === 'fieldLong' ? Buffer.alloc(64 * 1024, 'v') : clean(Buffer.from(pick(['csv', 'true', '', 'línea\r\ncon\r\n--guiones', 'x'.repeat(int(300))]), 'utf8'));
      const ct = pick([null, 'Content-Type: text/plain; charset=utf-8', 'Content-Type: text/plain; charset=ISO-8859-1', 'Content-Type: text/plain; charset=utf-16le']);
      const disp = rand() < 0.1 ? `Content-Disposition: form-data;\r\n\tname="${name}"` : `Content-Disposition: form-data; name="${name}"`;
      part(headerLines([utf8Header(disp), ...(ct ? [ct] : [])]), value);
    } else {
      // A part busboy skips: no Content-Disposition, or not form-data.
      part([pick(['Content-Type: text/plain', 'Content-Disposition: attachment; name="x"', 'Content-Disposition: inline'])], content(40));
    }
  }
  if (what === 'octet') part(['Content-Disposition: form-data; name="file"', 'Content-Type: application/octet-stream'], content(200));
  if (what === 'badHeader') part(['Content-Disposition: form-data; name="format"', 'Bad Header: x'], Buffer.from('csv'));
  // Transport padding after a delimiter (RFC 2046): busboy ignores the part after it, the scanner reads it; so
  // busboy's answer to compare with is its answer to the same form without the padding.
  const padded = (pad: string) => Buffer.from(`--${boundary}${pad}\r\nContent-Disposition: form-data; name="format"\r\n\r\ncsv\r\n`);
  const preamble = rand() < 0.3 ? Buffer.concat([Buffer.from('This is the preamble.\r\n-- not it\r\n'), content(60).subarray(0, 0)]) : Buffer.alloc(0);
  const closing = pick([`--${boundary}--`, `--${boundary}--\r\n`, `--${boundary}--\r\nepilogue, ignored\r\n--${boundary.slice(0, -1)}`]);
  const reference = what === 'padding' ? Buffer.concat([preamble, ...parts, padded(''), Buffer.from(closing)]) : undefined;
  if (what === 'padding') parts.push(padded(' \t'));
  let body = Buffer.concat([preamble, ...parts, Buffer.from(closing)]);
  if (what === 'cut') body = body.subarray(0, int(body.length));
  if (what === 'lf') body = Buffer.from(body.toString('latin1').replaceAll('\r\n', '\n'), 'latin1');
  return { body, boundary, contentType, what, reference };
}

/** The scanner's answer to `body` cut at `cuts`, equal to busboy's to the same (or to `reference`, whole). */
async function compare(body: Buffer, contentType: string, cuts: number[], label: string, o: { length?: boolean; reference?: Buffer } = {}): Promise<Outcome> {
  const expected = await outcome(readMultipartBusboy, requestOf(o.reference ?? body, o.reference ? [] : cuts, { contentType, length: o.length }), LIMITS);
  const actual = await outcome(readMultipart, requestOf(body, cuts, { contentType, ...o }), LIMITS);
  assert.deepEqual(actual, expected, label);
  return actual;
}

test('random forms: the same files, fields and refusals as busboy, however the body is cut', { timeout: 600_000 }, async () => {
  const rand = mulberry32(20261127);
  const seen = new Map<string, number>();
  for (let n = 0; n < 300; n++) {
    const { body, boundary, contentType, what, reference } = randomForm(rand);
    const label = `form ${n} (${what}, boundary ${JSON.stringify(boundary)}, ${body.length} bytes)`;
    const whole = await compare(body, contentType, [], `${label}, whole`, { reference });
    const key = whole.ok ? 'ok' : `${whole.code} ${whole.key ?? ''}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    if (body.length <= 20_000) await compare(body, contentType, every(1, body.length), `${label}, byte by byte`, { reference });
    for (let r = 0; r < 3; r++) {
      const cuts: number[] = [];
      for (let at = 1 + Math.floor(rand() * 300); at < body.length; at += 1 + Math.floor(rand() * 3000)) cuts.push(at);
      await compare(body, contentType, cuts, `${label}, random cuts ${cuts.slice(0, 5).join(',')}`, { length: r !== 2, reference });
    }
    const needle = `\r\n--${boundary}`.length;
    for (let offset = 0; offset <= needle; offset++) await compare(body, contentType, throughDelimiters(body, boundary, offset), `${label}, delimiters cut at ${offset}`, { reference });
  }
  console.log('outcomes of the random forms:', JSON.stringify(Object.fromEntries(seen)));
  // The forms reached every outcome they were made for.
  for (const key of ['ok', 'too_many_files ', 'input_too_large ', 'invalid_option rest.errors.multipart_too_many_fields', 'invalid_option rest.errors.multipart_too_many_parts', 'invalid_option rest.errors.multipart_field_too_long', 'invalid_option rest.errors.multipart_malformed', 'invalid_option rest.errors.multipart_file_name', 'invalid_option rest.errors.multipart_file_field', 'unknown_option ']) {
    assert.ok((seen.get(key) ?? 0) > 0, `no form ended as ${key}: ${JSON.stringify([...seen])}`);
  }
});

const B = 'XyZbOuNdArY';
const fieldPart = (name: string, value: string | Buffer, headers = '') =>
  Buffer.concat([Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n${headers}\r\n`, 'latin1'), Buffer.from(value), Buffer.from('\r\n')]);
const filePart = (field: string, name: string, content: string | Buffer) =>
  Buffer.concat([Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\nContent-Type: text/csv\r\n\r\n`), Buffer.from(content), Buffer.from('\r\n')]);
const form = (...parts: Buffer[]) => Buffer.concat([...parts, Buffer.from(`--${B}--\r\n`)]);
const CT = `multipart/form-data; boundary=${B}`;

/** Both readers, whole and byte by byte (or in 1 KB chunks for large bodies): the scanner's answer, equal to busboy's. */
async function both(body: Buffer, contentType = CT, o: { length?: boolean } = {}): Promise<Outcome> {
  const whole = await compare(body, contentType, [], 'whole', o);
  await compare(body, contentType, every(body.length > 20_000 ? 1024 : 1, body.length), 'in small chunks', o);
  return whole;
}

const refused = (key: string, extra: object = {}): Outcome => ({ ok: false, code: 'invalid_option', key: `rest.errors.${key}`, option: undefined, params: undefined, ...extra });

test('hostile bodies: each refused with its code, as busboy refuses it', { timeout: 120_000 }, async () => {
  const ok = fieldPart('format', 'csv');
  // One part's header section over 16 KB.
  assert.deepEqual(await both(form(fieldPart('format', 'csv', `X-Long: ${'a'.repeat(17_000)}\r\n`))), refused('multipart_malformed'));
  // More parts than files and fields together may be (parts busboy skips, without Content-Disposition).
  const skipped = Buffer.from(`--${B}\r\nContent-Type: text/plain\r\n\r\nx\r\n`);
  assert.deepEqual(await both(form(...Array(LIMITS.maxFileParts + 100).fill(skipped))), refused('multipart_too_many_parts', { params: { max: LIMITS.maxFileParts + 100 } }));
  assert.deepEqual(await both(form(...Array(101).fill(ok))), refused('multipart_too_many_fields', { params: { max: 100 } }));
  const csv = filePart('file', 'a.csv', 'a\n1\n');
  assert.deepEqual(await both(form(...Array(LIMITS.maxFileParts + 1).fill(csv))), { ok: false, code: 'too_many_files', key: undefined, option: 'files', params: { max: 3 } });
  // A field value reaching 64 KB is refused (busboy counts one that reaches its bound as cut); one byte less is not.
  assert.deepEqual(await both(form(fieldPart('sheet', Buffer.alloc(64 * 1024, 'v')))), refused('multipart_field_too_long', { option: 'sheet', params: { max: 64 * 1024 } }));
  assert.equal(((await both(form(fieldPart('sheet', Buffer.alloc(64 * 1024 - 1, 'v'))))) as unknown as { fields: { sheet: string } }).fields.sheet.length, 64 * 1024 - 1);
  // Files over the input bound together, with and without a declared length.
  const big = [filePart('file', 'a.csv', Buffer.alloc(3500, 'a')), filePart('files', 'b.csv', Buffer.alloc(3500, 'b'))];
  const tooLarge = { ok: false, code: 'input_too_large', key: undefined, option: 'files', params: { max: LIMITS.maxInputMb } };
  assert.deepEqual(await both(form(...big)), tooLarge);
  assert.deepEqual(await both(form(...big), CT, { length: false }), tooLarge);
  // Garbage, no boundary, a body that never closes.
  assert.deepEqual(await both(Buffer.from('\x00\xff garbage \r\n--nope\r\n')), refused('multipart_malformed'));
  assert.deepEqual(await both(form(ok), 'multipart/form-data'), refused('multipart_malformed'));
  assert.deepEqual(await both(form(ok), 'multipart/form-data; boundary'), refused('multipart_malformed'));
  assert.deepEqual(await both(form(ok).subarray(0, -4)), refused('multipart_malformed'));
  // A file part with no file name, a text field in a file's name, an unknown file field.
  assert.deepEqual(await both(form(Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"\r\nContent-Type: application/octet-stream\r\n\r\nabc\r\n`))), refused('multipart_file_name', { option: 'file' }));
  assert.deepEqual(await both(form(fieldPart('file', 'a,b'))), refused('multipart_file_field', { option: 'file' }));
  assert.deepEqual(await both(form(filePart('attachment', 'a.csv', 'x'))), { ok: false, code: 'unknown_option', key: undefined, option: 'attachment', params: { option: 'attachment' } });
});

test('hostile bodies busboy accepts are accepted alike: many header lines, long names, a long boundary', { timeout: 120_000 }, async () => {
  // 2,100 header lines in under 16 KB: busboy keeps the first 1,999 and bounds them only by their bytes.
  const many = Array.from({ length: 2100 }, (_, i) => `x${i % 10}:\r\n`).join('');
  assert.deepEqual(await both(form(fieldPart('format', 'csv', many))), { ok: true, files: [], fields: { format: 'csv' } });
  // A Content-Disposition past the lines kept: the part is skipped.
  const late = `--${B}\r\n${many}Content-Disposition: form-data; name="format"\r\n\r\ncsv\r\n`;
  assert.deepEqual(await both(form(Buffer.from(late))), { ok: true, files: [], fields: {} });
  // busboy 1.6.0 never bounded field names in multipart bodies: only the header's 16 KB do.
  const name = 'n'.repeat(5000);
  assert.deepEqual(await both(form(fieldPart(name, 'v'))), { ok: true, files: [], fields: { [name]: 'v' } });
  // A boundary longer than RFC 2046's 70 characters, as busboy takes it; a delimiter cut anywhere still found.
  const long = 'L'.repeat(300);
  const body = Buffer.from(`--${long}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\n${'\r\n--' + long.slice(1)}\r\n--${long}--`);
  const expected = { ok: true, files: [{ name: 'a.csv', bytes: Buffer.from('\r\n--' + long.slice(1)).toString('hex') }], fields: {} };
  assert.deepEqual(await both(body, `multipart/form-data; boundary=${long}`), expected);
  for (let offset = 0; offset < 305; offset += 7) assert.deepEqual(await compare(body, `multipart/form-data; boundary=${long}`, throughDelimiters(body, long, offset), `offset ${offset}`), expected);
  // Names and file names: quoted strings with escapes, filename* (RFC 5987) over filename, paths cut to their base.
  const names = Buffer.from(
    `--${B}\r\nContent-Disposition: form-data; name="file"; filename="C:\\\\Users\\\\a\\\\b \\"q\\".csv"\r\n\r\nx\r\n` +
      `--${B}\r\nContent-Disposition: form-data; name="files"; filename="plain.csv"; filename*=UTF-8''%C3%B1and%C3%BA%20%E2%82%AC.csv\r\n\r\ny\r\n` +
      `--${B}\r\nContent-Disposition: form-data; name="lookup-file"; filename*=iso-8859-1'es'a%F1o.csv\r\n\r\nz\r\n--${B}--`,
    'latin1',
  );
  const got = (await both(names)) as Extract<Outcome, { ok: true }>;
  assert.deepEqual(got.files.map((f) => f.name), ['b "q".csv', 'ñandú €.csv', 'año.csv']);
});

test('a client that goes away, and an early refusal, leave the body to discardRest', { timeout: 60_000 }, async () => {
  const body = form(filePart('file', 'a.csv', Buffer.alloc(3000, 'a')));
  for (const read of [readMultipartBusboy, readMultipart]) {
    assert.deepEqual(await outcome(read, requestOf(body.subarray(0, 1000), [300], { contentType: CT, cut: true }), LIMITS), refused('multipart_malformed'));
    // Refused at the fourth file: the rest is read and dropped, by no one's listener.
    const req = requestOf(form(...Array(5).fill(filePart('file', 'a.csv', 'a'))), [1], { contentType: CT });
    assert.equal((await outcome(read, req, LIMITS)).ok, false);
    assert.equal(req.listenerCount('data'), 0);
    assert.equal(req.readableFlowing, true);
  }
});

test('where busboy answers by the cutting, or never, the scanner answers one way', { timeout: 60_000 }, async () => {
  const turns = async (p: Promise<Outcome>) => {
    let settled = false;
    void p.finally(() => (settled = true));
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    return settled;
  };
  // A part header still open at the next delimiter. busboy reads on into the next part: here a field...
  const spans = Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="f"\r\n--${B}\r\n\r\nhello\r\n--${B}--`);
  assert.deepEqual(await outcome(readMultipartBusboy, requestOf(spans, [], { contentType: CT }), LIMITS), { ok: true, files: [], fields: { f: 'hello' } });
  // ...and here a file part it opens and never ends: its answer never comes (the request has ended).
  const hangs = Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n--${B}\r\n\r\n--`);
  assert.equal(await turns(outcome(readMultipartBusboy, requestOf(hangs, [], { contentType: CT }), LIMITS)), false);
  for (const body of [spans, hangs]) {
    for (const cuts of [[], every(1, body.length), [50]]) assert.deepEqual(await outcome(readMultipart, requestOf(body, cuts, { contentType: CT }), LIMITS), refused('multipart_malformed'));
  }
  // A delimiter, one dash, the next delimiter: busboy drops the next part when the two delimiters come in one chunk.
  const dash = form(fieldPart('f', 'v'), Buffer.from(`--${B}-\r\n`), fieldPart('g', 'w'));
  const cut = dash.indexOf(`\r\n--${B}\r\nContent-Disposition: form-data; name="g"`);
  assert.deepEqual(await outcome(readMultipartBusboy, requestOf(dash, [], { contentType: CT }), LIMITS), { ok: true, files: [], fields: { f: 'v' } });
  assert.deepEqual(await outcome(readMultipartBusboy, requestOf(dash, [cut], { contentType: CT }), LIMITS), { ok: true, files: [], fields: { f: 'v', g: 'w' } });
  // The scanner: the line after a delimiter is `--`, or CRLF after optional padding; anything else is malformed.
  for (const cuts of [[], [cut], every(1, dash.length)]) assert.deepEqual(await outcome(readMultipart, requestOf(dash, cuts, { contentType: CT }), LIMITS), refused('multipart_malformed'));
});

test('where busboy drops a part without a word, the scanner reads it or refuses the form', { timeout: 60_000 }, async () => {
  const scanned = async (body: Buffer) => {
    const answers = [];
    for (const cuts of [[], every(1, body.length), [body.length >> 1]]) answers.push(await outcome(readMultipart, requestOf(body, cuts, { contentType: CT }), LIMITS));
    for (const a of answers.slice(1)) assert.deepEqual(a, answers[0], 'one answer however the body is cut');
    return answers[0];
  };
  const busboys = (body: Buffer) => outcome(readMultipartBusboy, requestOf(body, [], { contentType: CT }), LIMITS);
  // Transport padding (RFC 2046) after a delimiter: busboy ignores the part, so `format` silently took its default.
  const padded = form(Buffer.from(`--${B} \t \r\nContent-Disposition: form-data; name="format"\r\n\r\ncsv\r\n`), fieldPart('sheet', 'a'));
  assert.deepEqual(await busboys(padded), { ok: true, files: [], fields: { sheet: 'a' } });
  assert.deepEqual(await scanned(padded), { ok: true, files: [], fields: { format: 'csv', sheet: 'a' } });
  // Anything else after a delimiter: busboy ignores the part; the scanner refuses the body.
  for (const after of ['X', ' x', '-x', '\rx', ' \t\n']) {
    const body = form(fieldPart('sheet', 'a'), Buffer.from(`--${B}${after}\r\nContent-Disposition: form-data; name="format"\r\n\r\ncsv\r\n`));
    assert.deepEqual(await busboys(body), { ok: true, files: [], fields: { sheet: 'a' } }, JSON.stringify(after));
    assert.deepEqual(await scanned(body), refused('multipart_malformed'), JSON.stringify(after));
  }
  // A field in a charset busboy cannot decode: busboy gives no value (the option fell back to its default).
  const koi = form(fieldPart('format', 'csv', 'Content-Type: text/plain; charset=koi8-r\r\n'));
  assert.deepEqual(await busboys(koi), { ok: true, files: [], fields: { format: undefined } });
  assert.deepEqual(await scanned(koi), refused('multipart_field_charset', { option: 'format', params: { charset: 'koi8-r' } }));
  // Charsets busboy decodes are read as before.
  const latin = form(fieldPart('sheet', Buffer.from('año', 'latin1'), 'Content-Type: text/plain; charset=ISO-8859-1\r\n'));
  assert.deepEqual(await scanned(latin), { ok: true, files: [], fields: { sheet: 'año' } });
});

test('preamble, epilogue, LF-only lines, parts without Content-Disposition, empty parts: as busboy', { timeout: 60_000 }, async () => {
  const part = fieldPart('format', 'csv');
  const cases: [Buffer, Outcome][] = [
    [Buffer.concat([Buffer.from('preamble\r\n'), form(part), Buffer.from('epilogue\r\n--XyZ')]), { ok: true, files: [], fields: { format: 'csv' } }],
    // LF-only lines: no delimiter is ever found, so the form never ends.
    [Buffer.from(form(part).toString('latin1').replaceAll('\r\n', '\n'), 'latin1'), refused('multipart_malformed')],
    [form(Buffer.from(`--${B}\r\nContent-Type: text/plain\r\n\r\nx\r\n`), part), { ok: true, files: [], fields: { format: 'csv' } }],
    // A part with no header at all is malformed to busboy; an empty file part with an empty name is no file.
    [form(Buffer.from(`--${B}\r\n\r\nx\r\n`)), refused('multipart_malformed')],
    // A browser's form with no file chosen: an empty octet-stream part named "". busboy takes an empty file name
    // for none, so with any other type the part is a text field (here in a file's name).
    [form(Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n\r\n`), fieldPart('format', '')), { ok: true, files: [], fields: { format: '' } }],
    [form(filePart('file', '', '')), refused('multipart_file_field', { option: 'file' })],
    [form(filePart('file', 'empty.csv', '')), { ok: true, files: [{ name: 'empty.csv', bytes: '' }], fields: {} }],
  ];
  for (const [body, expected] of cases) assert.deepEqual(await both(body), expected, body.toString('latin1').slice(0, 80));
});

test('over HTTP, the form busboy never answered is answered 400, and a form runs', { timeout: 120_000 }, async () => {
  const { startServer } = await import('../helpers/http.ts');
  const srv = await startServer({}, { jobs: 'inline' });
  try {
    const post = (body: Buffer) => fetch(`${srv.url}/api/v1/tools/split-rows/run?lang=en`, { method: 'POST', headers: { 'content-type': CT }, body });
    const hangs = Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n--${B}\r\n\r\n--`);
    const res = await post(hangs);
    assert.equal(res.status, 400);
    const answer = (await res.json()) as { ok: boolean; error: string; message: string };
    assert.deepEqual([answer.ok, answer.error], [false, 'invalid_option']);
    assert.match(answer.message, /multipart/i);
    const good = await post(form(filePart('file', 'a.csv', 'a\n1\n2\n'), fieldPart('rows-per-file', '1')));
    assert.equal(good.status, 200, await good.clone().text());
    assert.equal(((await good.json()) as { files: unknown[] }).files.length, 2);
  } finally {
    await srv.close();
  }
});

test('a fault inside the scanner refuses the request as malformed and throws nothing into the request\'s events', { timeout: 60_000 }, async () => {
  const push = MultipartScanner.prototype.push;
  const logged = console.error;
  MultipartScanner.prototype.push = function (chunk: Buffer) {
    if (chunk.includes('boom')) throw new Error('a bug');
    return push.call(this, chunk);
  };
  console.error = () => {};
  try {
    const body = form(fieldPart('format', 'boom'));
    assert.deepEqual(await outcome(readMultipart, requestOf(body, [10], { contentType: CT }), LIMITS), refused('multipart_malformed'));
  } finally {
    MultipartScanner.prototype.push = push;
    console.error = logged;
  }
  assert.deepEqual(await outcome(readMultipart, requestOf(form(fieldPart('format', 'csv')), [10], { contentType: CT }), LIMITS), { ok: true, files: [], fields: { format: 'csv' } });
});
