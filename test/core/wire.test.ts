// The RunResponse written piece by piece into one buffer (wire.ts runResponseBytes) is, byte for byte, the JSON
// text of the RunResponse object, whatever the files' sizes (around the base64 pieces' edges), names and
// previews hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { InvokeResult } from '../../tools/core/invoke.ts';
import { runResponse, runResponseBytes } from '../../tools/core/wire.ts';

const PIECE = 3 * 256 * 1024;
const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + (i >> 8)) & 0xff);

function result(files: InvokeResult['files'], more: Partial<InvokeResult> = {}): InvokeResult {
  return { tool: 'excel-to-json', lang: 'es', files, preview: null, textPreview: null, messages: [], rate: { limit: 30, remaining: 29, reset: 3600 }, ...more };
}

test('wire: the RunResponse bytes are the JSON text of the RunResponse', () => {
  const sizes = [0, 1, 2, 3, 4, 5, PIECE - 1, PIECE, PIECE + 1, 2 * PIECE + 2];
  const cases: InvokeResult[] = [
    result([]),
    ...sizes.map((n) => result([{ name: `f-${n}.bin`, contentType: 'application/octet-stream', bytes: bytes(n) }])),
    result(
      [
        { name: 'ñandú \u202e "citado" \\ \u0001 😀 \ud800.csv', contentType: 'text/csv; charset=utf-8', bytes: bytes(10) },
        // A view into a larger buffer: only its own bytes are encoded.
        { name: 'b.json', contentType: 'application/json', bytes: bytes(PIECE + 9).subarray(5, PIECE + 4) },
      ],
      {
        preview: { columns: ['a', 'ñ"'], rows: [[1, 'x\ny'], [null, true]], totalRows: 2, truncated: false, sheet: 'Hoja 1' },
        textPreview: '{"a": 1}\n\u2028',
        messages: [{ level: 'warning', text: 'línea "3"' }],
      },
    ),
  ];
  for (const r of cases) {
    const expected = Buffer.from(JSON.stringify(runResponse(r)), 'utf8');
    const got = runResponseBytes(r);
    assert.equal(got.length, expected.length, r.files.map((f) => f.name).join());
    assert.ok(got.equals(expected), r.files.map((f) => f.name).join());
  }
});
