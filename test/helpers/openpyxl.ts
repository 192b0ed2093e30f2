// An .xlsx result as Python's openpyxl reads it: another program than the ones the service writes with.
// Debian's python3 (/usr/bin: python3-openpyxl), whatever python3 comes first on PATH. Values come back as JSON: text, numbers, booleans, dates as `{ "date": "yyyy-mm-ddThh:mm:ss" }`, empty as null.
import { execFileSync } from 'node:child_process';

export interface PySheet {
  name: string;
  rows: (string | number | boolean | { date: string } | null)[][];
}

const SCRIPT = `
import sys, json, io, datetime, openpyxl
wb = openpyxl.load_workbook(io.BytesIO(sys.stdin.buffer.read()), data_only=False)
def v(c):
    x = c.value
    if isinstance(x, (datetime.datetime, datetime.date, datetime.time)): return {"date": x.isoformat()}
    return x
out = [{"name": ws.title, "rows": [[v(c) for c in row] for row in ws.iter_rows()]} for ws in wb.worksheets]
sys.stdout.write(json.dumps(out, ensure_ascii=False))
`;

export function openpyxlSheets(bytes: Uint8Array): PySheet[] {
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', SCRIPT], { input: bytes, maxBuffer: 256 * 1024 * 1024 }).toString('utf8')) as PySheet[];
}
