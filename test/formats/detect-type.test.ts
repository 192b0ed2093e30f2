import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectType } from '../../tools/formats/csv/detect-type.ts';
import { d } from '../helpers/read-xlsx.ts';

const point = (s: string) => detectType(s, { decimalComma: false });
const comma = (s: string) => detectType(s, { decimalComma: true });

test('detectType: integers and decimals', () => {
  assert.equal(point('0'), 0);
  assert.equal(point('42'), 42);
  assert.equal(point('-7'), -7);
  assert.equal(point('3.25'), 3.25);
  assert.equal(point('-0.5'), -0.5);
  assert.equal(point('.5'), 0.5);
  assert.equal(point('123456789012345'), 123456789012345);
});

test('detectType: decimal comma only when the delimiter is not a comma', () => {
  assert.equal(comma('1,5'), 1.5);
  assert.equal(comma('-2,25'), -2.25);
  assert.equal(point('1,5'), '1,5');
  assert.equal(comma('1.5'), 1.5);
});

test('detectType: text that only looks numeric stays text', () => {
  for (const s of [
    '00123', '0123', '007', '00.5', '1234567890123456', '4111111111111111', '12345678901234567890', '+34 600 000 000', '+34600000000',
    '+5', '1 000', '1.000,50', '1,000.50', '1,000,000', '1e5', '1E5', '12E45', ' 12', '12 ', '5.', '-', '.', '0x1F', 'Infinity',
    'NaN', '1_000', '€5', '5%', '−5', '0.1234567890123456',
  ]) {
    assert.equal(point(s), s, `point: ${s}`);
  }
  for (const s of ['1.000,50', '1,000,5', '1 000,5', '00,5', ',']) assert.equal(comma(s), s, `comma: ${s}`);
});

test('detectType: ISO dates, with optional time', () => {
  assert.deepEqual(point('2024-01-31'), d(2024, 1, 31));
  assert.deepEqual(point('2024-02-29 13:45'), d(2024, 2, 29, 13, 45));
  assert.deepEqual(point('2024-02-29T13:45:30'), d(2024, 2, 29, 13, 45, 30));
  assert.deepEqual(point('2024-02-29T13:45:30.250'), new Date(Date.UTC(2024, 1, 29, 13, 45, 30, 250)));
  assert.deepEqual(point('0099-01-01'), new Date('0099-01-01T00:00:00Z'));
});

test('detectType: dd/mm/yyyy dates, with optional time', () => {
  assert.deepEqual(point('31/12/2023'), d(2023, 12, 31));
  assert.deepEqual(point('1/2/2024'), d(2024, 2, 1));
  assert.deepEqual(point('05/06/2024 08:30'), d(2024, 6, 5, 8, 30));
});

test('detectType: impossible or zoned dates stay text', () => {
  for (const s of ['2023-02-29', '2024-13-01', '2024-00-10', '31/02/2024', '12/31/2023', '2024-01-01T25:00', '2024-01-01T10:00:00Z', '2024-01-01T10:00+02:00', '2024-1-5', '24-01-05', '2024/01/05'])
    assert.equal(point(s), s, s);
});

test('detectType: booleans in English and Spanish, any case', () => {
  assert.equal(point('true'), true);
  assert.equal(point('FALSE'), false);
  assert.equal(point('Verdadero'), true);
  assert.equal(point('falso'), false);
  assert.equal(point('sí'), 'sí');
  assert.equal(point(' true'), ' true');
});

test('detectType: empty is null, other text is unchanged', () => {
  assert.equal(point(''), null);
  assert.equal(point(' '), ' ');
  assert.equal(point('=SUM(A1)'), '=SUM(A1)');
  assert.equal(point('@x'), '@x');
});

// The definition the scanner implements, as regular expressions (the first version of detect-type.ts):
// the scanner must give the same cell for every text.
const NUMBER_POINT = /^-?(?:0|[1-9]\d*)?(?:\.\d+)?$/;
const NUMBER_COMMA = /^-?(?:0|[1-9]\d*)?(?:,\d+)?$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?$/;
const DMY_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?: (\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;

function reference(text: string, decimalComma: boolean): unknown {
  if (text === '') return null;
  if (text.length <= 40 && /\d/.test(text)) {
    let normalized: string | null = text;
    if (!NUMBER_POINT.test(text)) normalized = decimalComma && NUMBER_COMMA.test(text) ? text.replace(',', '.') : null;
    if (normalized !== null && normalized.replace(/\D/g, '').replace(/^0+/, '').length <= 15) {
      const n = Number(normalized);
      if (Number.isFinite(n)) return Object.is(n, -0) ? 0 : n;
    }
  }
  const valid = (y: number, m: number, d: number, h = 0, mi = 0, s = 0, ms = 0) => {
    if (m < 1 || m > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
    const date = new Date(Date.UTC(y, m - 1, d, h, mi, s, ms));
    date.setUTCFullYear(y);
    return date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d ? null : date;
  };
  let m = ISO_DATE.exec(text);
  if (m) return valid(+m[1], +m[2], +m[3], +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0), m[7] ? Number(m[7].padEnd(3, '0')) : 0) ?? text;
  m = DMY_DATE.exec(text);
  if (m) return valid(+m[3], +m[2], +m[1], +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0)) ?? text;
  const b = ({ true: true, false: false, verdadero: true, falso: false } as Record<string, boolean>)[text.toLowerCase()];
  return b === undefined ? text : b;
}

test('detectType: the scanner agrees with the regular expressions on 200,000 generated texts', () => {
  let seed = 12345;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const pick = (s: string) => s[Math.floor(rnd() * s.length)];
  const shapes = ['dddd-dd-dd', 'dddd-dd-ddTdd:dd', 'dddd-dd-dd dd:dd:dd', 'dddd-dd-ddTdd:dd:dd.ddd', 'dd/dd/dddd', 'd/d/dddd d:dd', 'dd/dd/dddd dd:dd:dd', '-d.d', 'ddddddddddddddddd', '0.000dddddddddddddd'];
  const noise = '0123456789-.,:/T +eZx';
  const seen = { number: 0, date: 0 };
  for (let k = 0; k < 200_000; k++) {
    let s = '';
    if (rnd() < 0.5) {
      for (const ch of shapes[Math.floor(rnd() * shapes.length)]) s += ch === 'd' ? pick('0123456789') : rnd() < 0.03 ? pick(noise) : ch;
      if (rnd() < 0.1) s = s.slice(0, Math.floor(rnd() * s.length));
    } else {
      const len = 1 + Math.floor(rnd() * 12);
      for (let i = 0; i < len; i++) s += rnd() < 0.7 ? pick('0123456789') : pick(noise);
    }
    for (const decimalComma of [false, true]) {
      const want = reference(s, decimalComma);
      const got = detectType(s, { decimalComma });
      if (want instanceof Date) {
        seen.date++;
        assert.ok(got instanceof Date && got.getTime() === want.getTime(), `${JSON.stringify(s)} comma=${decimalComma}: ${String(got)}`);
      } else {
        if (typeof want === 'number') seen.number++;
        assert.equal(got, want, `${JSON.stringify(s)} comma=${decimalComma}`);
      }
    }
  }
  // Both kinds must occur often, or the comparison says little.
  assert.ok(seen.number > 20_000 && seen.date > 5_000, JSON.stringify(seen));
});

test('detectType: booleans and year-0 leap days agree with the regular expressions', () => {
  for (const s of ['true', 'TRUE', 'tRuE', 'false', 'FALSO', 'verdadero', 'VERDADERO', 'truee', 'fals', 'yes', '0000-02-29', '0004-02-29', '1900-02-29', '2000-02-29', '29/02/0000', '0099-12-31 23:59:59.9']) {
    const want = reference(s, false);
    const got = detectType(s, { decimalComma: false });
    if (want instanceof Date) assert.ok(got instanceof Date && got.getTime() === want.getTime(), s);
    else assert.equal(got, want, s);
  }
});
