// A second independent reader for .xlsx results: Python's openpyxl (Debian's python3-openpyxl, hence
// /usr/bin/python3 rather than whatever python3 comes first on the PATH), with each value's Python type.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PY = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
print(json.dumps([{"name": ws.title, "state": ws.sheet_state, "rows": [[[type(c.value).__name__, None if c.value is None else str(c.value)] for c in r] for r in ws.iter_rows()]} for ws in wb.worksheets]))
`;

export interface PyTypedSheet {
  name: string;
  state: string;
  /** Each cell as [Python type name, str(value)] (null for an empty cell). */
  rows: [string, string | null][][];
}

export function openpyxlTyped(bytes: Uint8Array): PyTypedSheet[] {
  const dir = mkdtempSync(join(tmpdir(), 'st-openpyxl-'));
  try {
    writeFileSync(join(dir, 'r.xlsx'), bytes);
    return JSON.parse(execFileSync('/usr/bin/python3', ['-c', PY, join(dir, 'r.xlsx')], { encoding: 'utf8' })) as PyTypedSheet[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
