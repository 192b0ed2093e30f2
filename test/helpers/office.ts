// Independent readers of workbook files for the format tests: Python's xlrd (Debian python3-xlrd) for .xls,
// Gnumeric's ssconvert and LibreOffice headless for .xls and .ods. Each works on files in a temporary folder
// the caller owns; every child has a timeout (a guard against a hang only, generous: xlrd took over 2 minutes
// on the 65,536-row file on the loaded shared machine), and LibreOffice runs with a profile of its own there.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Debian's Python, which has python3-xlrd (a `python3` earlier on PATH may not). */
export const PYTHON = '/usr/bin/python3';

export interface XlrdCell {
  /** xlrd's ctype: 0 empty, 1 text, 2 number, 3 date, 4 boolean, 5 error, 6 blank. */
  t: number;
  v: string | number;
  /** The cell's number format. */
  f: string;
}

export interface XlrdSheet {
  name: string;
  /** 0 visible, 1 hidden, 2 very hidden. */
  visibility: number;
  nrows: number;
  ncols: number;
  /** [top, bottom + 1, left, right + 1], as xlrd gives them. */
  merged: [number, number, number, number][];
  /** Width of each column with a COLINFO, in 1/256 of a character. */
  widths: Record<string, number>;
  cells: XlrdCell[][];
}

const XLRD = `
import json, sys, xlrd
b = xlrd.open_workbook(sys.argv[1], formatting_info=True)
out = {'datemode': b.datemode, 'sheets': []}
for s in b.sheets():
    cells = [[{'t': c.ctype, 'v': c.value, 'f': b.format_map[b.xf_list[c.xf_index].format_key].format_str} for c in s.row(r)] for r in range(s.nrows)]
    out['sheets'].append({'name': s.name, 'visibility': s.visibility, 'nrows': s.nrows, 'ncols': s.ncols,
        'merged': s.merged_cells, 'widths': {str(k): v.width for k, v in s.colinfo_map.items()}, 'cells': cells})
json.dump(out, sys.stdout, ensure_ascii=True)
`;

export function xlrd(path: string): { datemode: number; sheets: XlrdSheet[] } {
  return JSON.parse(execFileSync(PYTHON, ['-c', XLRD, path], { encoding: 'utf8', maxBuffer: 1 << 30, timeout: 540_000 }));
}

/** Each sheet of a workbook as CSV text by ssconvert (UTF-8), in tab order. */
export function ssconvertCsv(path: string, dir: string): string[] {
  const stem = join(dir, 'ssconvert-sheet');
  execFileSync('ssconvert', ['-S', path, `${stem}.%n.csv`], { stdio: 'ignore', timeout: 540_000 });
  return readdirSync(dir)
    .filter((n) => n.startsWith('ssconvert-sheet.'))
    .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]))
    .map((n) => readFileSync(join(dir, n), 'utf8'));
}

/** Converts files with LibreOffice headless (`to`: `xlsx`, `ods`, `csv:…`); returns the output folder. */
export function soffice(paths: string[], to: string, dir: string): string {
  const out = join(dir, 'soffice-out');
  execFileSync(
    'soffice',
    ['--headless', '--norestore', '--nolockcheck', `-env:UserInstallation=file://${join(dir, 'soffice-profile')}`, '--convert-to', to, '--outdir', out, ...paths],
    { stdio: 'ignore', timeout: 540_000 },
  );
  return out;
}

/** One sheet as ssconvert shows it (values through their number formats; Gnumeric writes minus as U+2212). */
export function ssconvertShown(path: string, dir: string, sheet: string): string {
  const out = join(dir, 'ssconvert-shown.csv');
  execFileSync('ssconvert', ['-T', 'Gnumeric_stf:stf_assistant', '-O', `format=preserve sheet='${sheet.replace(/'/g, "\\'")}'`, path, out], { stdio: 'ignore', timeout: 540_000 });
  return readFileSync(out, 'utf8');
}
