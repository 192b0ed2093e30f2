// An independent reader for .xlsx results: Python's openpyxl (Debian python3-openpyxl), run as a child process.
// Cells come back typed as openpyxl sees them: text, numbers, booleans, dates (a time of day alone as a Date on
// Excel's day 0, 1899-12-30, as the format library models it), empty as null.
import { execFileSync } from 'node:child_process';
import type { Cell } from '../../tools/formats/model.ts';

const SCRIPT = `
import sys, json, io, datetime
from openpyxl import load_workbook
wb = load_workbook(io.BytesIO(sys.stdin.buffer.read()), read_only=False, data_only=False)
def cell(v):
    if isinstance(v, datetime.datetime): return {"d": v.isoformat()}
    if isinstance(v, datetime.date): return {"d": v.isoformat() + "T00:00:00"}
    if isinstance(v, datetime.time): return {"d": "1899-12-30T" + v.isoformat()}
    if isinstance(v, datetime.timedelta): return {"d": (datetime.datetime(1899, 12, 30) + v).isoformat()}
    return v
out = [{"name": ws.title, "rows": [[cell(v) for v in row] for row in ws.iter_rows(values_only=True)]} for ws in wb.worksheets]
sys.stdout.write(json.dumps(out))
`;

export interface OpenpyxlSheet {
  name: string;
  rows: Cell[][];
}

export function readWithOpenpyxl(bytes: Uint8Array): OpenpyxlSheet[] {
  const out = execFileSync('/usr/bin/python3', ['-c', SCRIPT], { input: bytes, maxBuffer: 512 * 1024 * 1024 });
  const sheets = JSON.parse(out.toString('utf8')) as { name: string; rows: unknown[][] }[];
  return sheets.map((s) => ({
    name: s.name,
    rows: s.rows.map((r) => r.map((v) => (v !== null && typeof v === 'object' && 'd' in v ? new Date(`${(v as { d: string }).d}Z`) : (v as Cell)))),
  }));
}
