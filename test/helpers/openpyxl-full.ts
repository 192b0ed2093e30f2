// openpyxl as the judge of a workbook read `full`: what it finds in each sheet besides the values — formulas
// (shared ones moved per cell by its Translator), number formats, merged ranges, column widths, sheet states —
// and the values themselves (data_only: the cached values). Debian's python3-openpyxl, run as a child process;
// a Strict OOXML package is read with its namespaces renamed to Transitional ones, which are all openpyxl 3.0 knows.
import { execFileSync } from 'node:child_process';

const SCRIPT = `
import sys, io, json, datetime, zipfile, openpyxl
from openpyxl.utils import column_index_from_string
data = sys.stdin.buffer.read()
# openpyxl 3.0 knows only Transitional namespaces: a Strict package is read with its namespaces renamed, its
# cells left as written.
STRICT = [(b'http://purl.oclc.org/ooxml/spreadsheetml/main', b'http://schemas.openxmlformats.org/spreadsheetml/2006/main'),
          (b'http://purl.oclc.org/ooxml/officeDocument/relationships', b'http://schemas.openxmlformats.org/officeDocument/2006/relationships')]
src = zipfile.ZipFile(io.BytesIO(data))
if any(STRICT[0][0] in src.read(i.filename) for i in src.infolist() if i.filename.endswith('.xml')):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as dst:
        for i in src.infolist():
            part = src.read(i.filename)
            for strict, transitional in STRICT: part = part.replace(strict, transitional)
            dst.writestr(i, part)
    data = buf.getvalue()
values = openpyxl.load_workbook(io.BytesIO(data), data_only=True)
formulas = openpyxl.load_workbook(io.BytesIO(data), data_only=False)
def value(c):
    v = c.value
    if isinstance(v, datetime.datetime): return {"date": v.isoformat()}
    if isinstance(v, datetime.date): return {"date": v.isoformat() + "T00:00:00"}
    if isinstance(v, datetime.time): return {"date": "1899-12-30T" + v.isoformat()}
    if isinstance(v, datetime.timedelta): return {"days": v.total_seconds() / 86400}
    if c.data_type == "e": return {"error": v}
    if isinstance(v, float) and v != v: return "NaN"
    return v
out = []
for ws, wf in zip(values.worksheets, formulas.worksheets):
    cells = {}
    for row in ws.iter_rows():
        for c in row:
            f = wf[c.coordinate].value
            formula = f[1:] if isinstance(f, str) and f.startswith("=") and wf[c.coordinate].data_type == "f" else None
            if c.value is None and formula is None: continue
            cells[c.coordinate] = {"v": value(c), "f": formula, "z": c.number_format}
    widths = {}
    for key, d in ws.column_dimensions.items():
        if d.width is not None and d.customWidth or d.width:
            for i in range(d.min or column_index_from_string(key), (d.max or column_index_from_string(key)) + 1): widths[i - 1] = d.width
    out.append({"name": ws.title, "state": ws.sheet_state, "merges": [str(r) for r in ws.merged_cells.ranges], "widths": widths, "cells": cells})
sys.stdout.write(json.dumps(out, ensure_ascii=False))
`;

export interface JudgedCell {
  v: unknown;
  f: string | null;
  z: string;
}

export interface JudgedSheet {
  name: string;
  state: string;
  merges: string[];
  widths: Record<string, number>;
  cells: Record<string, JudgedCell>;
}

export function openpyxlFull(bytes: Uint8Array): JudgedSheet[] {
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', SCRIPT], { input: bytes, maxBuffer: 256 * 1024 * 1024 }).toString('utf8')) as JudgedSheet[];
}

/** Runs a Python script (openpyxl, to make a workbook) that writes the file named by its one argument; returns the bytes. */
export function pythonWorkbook(script: string, path: string): void {
  execFileSync('/usr/bin/python3', ['-c', script, path], { stdio: ['ignore', 'ignore', 'pipe'] });
}
