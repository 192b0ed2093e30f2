import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dateToSerial, serialToDate, isTimeOnly } from '../../tools/formats/dates.ts';
import { d } from '../helpers/read-xlsx.ts';

test('serialToDate: 1900 system, around the phantom 29 February 1900', () => {
  assert.deepEqual(serialToDate(1), d(1900, 1, 1));
  assert.deepEqual(serialToDate(59), d(1900, 2, 28));
  assert.deepEqual(serialToDate(61), d(1900, 3, 1));
  assert.deepEqual(serialToDate(45306), d(2024, 1, 15));
  assert.deepEqual(serialToDate(45337.5), d(2024, 2, 15, 12));
});

test('serialToDate: 1904 system', () => {
  assert.deepEqual(serialToDate(0, true), d(1904, 1, 1));
  assert.deepEqual(serialToDate(43844, true), d(2024, 1, 15));
});

test('serialToDate: a fraction alone is a time of day on Excel day 0', () => {
  const t = serialToDate(0.4375);
  assert.deepEqual(t, new Date(Date.UTC(1899, 11, 30, 10, 30)));
  assert.ok(isTimeOnly(t));
  assert.deepEqual(serialToDate(0.4375, true, false), t);
  assert.deepEqual(serialToDate(0.5, true, true), d(1904, 1, 1, 12));
});

test('serialToDate: binary noise in fractions is rounded away', () => {
  assert.deepEqual(serialToDate(45306 + 13 / 24 + 45 / 1440), d(2024, 1, 15, 13, 45));
});

test('dateToSerial: inverse of serialToDate, null before 1900', () => {
  for (const s of [1, 31, 59, 61, 45306, 45337.5, 0.4375]) assert.equal(dateToSerial(serialToDate(s)), s);
  assert.equal(dateToSerial(d(1899, 12, 1)), null);
  assert.equal(dateToSerial(new Date(NaN)), null);
});
