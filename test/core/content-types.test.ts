// The run route reads the common content types without the parsers behind them (bridge/run.ts kindOf,
// bridge/multipart-scan.ts boundaryOf): for every header, their answer must be the parsers' own, so these
// compare them on the shapes clients send and on the near misses that must go the parsers' way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import express, { type Request } from 'express';
import utils from 'busboy/lib/utils.js';
import { boundaryOf } from '../../bridge/multipart-scan.ts';
import { kindOf } from '../../bridge/run.ts';

const TYPES = [
  'multipart/form-data; boundary=--------------------------123456789012345678901234',
  'multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW',
  'multipart/form-data;boundary=abc',
  'MULTIPART/Form-Data; BOUNDARY=AbC',
  "multipart/form-data; boundary=!#$%&'*+-.^_`|~09azAZ",
  'multipart/form-data; boundary="quoted boundary"',
  'multipart/form-data; boundary=a/b',
  'multipart/form-data; boundary=a:b',
  'multipart/form-data;  boundary=two-spaces',
  'multipart/form-data;\tboundary=tab',
  'multipart/form-data ; boundary=space-before',
  'multipart/form-data; boundary=trailing ',
  'multipart/form-data; boundary=x; charset=utf-8',
  'multipart/form-data; charset=utf-8; boundary=x',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=ä',
  'multipart/form-data',
  'multipart/mixed; boundary=x',
  'multipart/form-data-x; boundary=x',
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON; Charset=UTF-8',
  'application/json;charset=utf-8',
  'application/json; charset=latin1',
  'application/json ',
  'application/jsonx',
  'application/vnd.api+json',
  'text/plain',
  '',
];

test('boundaryOf gives what busboy reads from every content type', () => {
  for (const type of TYPES) {
    const parsed = utils.parseContentType(type);
    const expected = parsed?.type === 'multipart' && parsed.subtype === 'form-data' && typeof parsed.params.boundary === 'string' ? parsed.params.boundary : null;
    assert.equal(boundaryOf(type), expected, JSON.stringify(type));
  }
  assert.equal(boundaryOf(undefined), null);
});

test('kindOf answers as req.is(application/json, multipart/form-data) for every content type and body framing', () => {
  const app = express();
  const framings: Array<Record<string, string>> = [{ 'content-length': '10' }, { 'content-length': '' }, { 'content-length': 'x' }, { 'transfer-encoding': 'chunked' }, {}];
  for (const type of [...TYPES, undefined]) {
    for (const framing of framings) {
      const headers: Record<string, string> = { ...framing, ...(type === undefined ? {} : { 'content-type': type }) };
      const req = Object.setPrototypeOf({ headers, app }, app.request) as Request;
      assert.equal(kindOf(req), req.is(['application/json', 'multipart/form-data']), JSON.stringify(headers));
    }
  }
});
