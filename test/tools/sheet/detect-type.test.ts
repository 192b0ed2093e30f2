import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectType } from '../../../tools/sheet/detect-type.ts';
import { d } from '../../helpers/read-xlsx.ts';

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
