// Independent readers of .docx results: LibreOffice Writer headless (to text and to PDF, in one process per
// batch, with a profile of its own so that parallel runs never share one), and Python's zipfile + ElementTree
// over the package's XML.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Each document converted by LibreOffice to `format` (`txt:Text`, `pdf`): the converted bytes, in order. */
export function libreOfficeConvert(docs: Uint8Array[], format: string): Buffer[] {
  const dir = mkdtempSync(join(tmpdir(), 'st-docx-'));
  try {
    const names = docs.map((d, i) => {
      const path = join(dir, `doc${i}.docx`);
      writeFileSync(path, d);
      return path;
    });
    execFileSync('soffice', [`-env:UserInstallation=file://${join(dir, 'profile')}`, '--headless', '--norestore', '--convert-to', format, '--outdir', dir, ...names], { stdio: 'pipe', timeout: 300_000 });
    const ext = format.split(':')[0];
    return names.map((n) => readFileSync(n.replace(/\.docx$/, `.${ext}`)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface DocxPackage {
  /** Every table: its rows, each cell with its text (line breaks as \n), bold, alignment. */
  tables: { header: boolean[]; cantSplit: boolean[]; grid: number[]; rows: { text: string; bold: boolean; right: boolean }[][] }[];
  page: { w: number; h: number; orient: string | null; margins: Record<string, number> };
  header: string;
  footer: string;
  title: string | null;
  creator: string | null;
  entries: string[];
}

const SCRIPT = String.raw`
import sys, json, io, zipfile
import xml.etree.ElementTree as ET
W = '{http://schemas.openxmlformats.org/wordprocessingml/2006/main}'
z = zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))
assert z.testzip() is None
doc = ET.fromstring(z.read('word/document.xml'))
def text(el):
    out = ''
    for n in el.iter():
        if n.tag == W + 't': out += n.text or ''
        elif n.tag == W + 'br': out += '\n'
        elif n.tag == W + 'tab': out += '\t'
        elif n.tag == W + 'instrText' or n.tag == W + 'fldSimple': out += '{' + (n.get(W + 'instr') or '').strip() + '}' if n.tag == W + 'fldSimple' else ''
    return out
tables = []
for tbl in doc.iter(W + 'tbl'):
    rows, header, cant = [], [], []
    for tr in tbl.findall(W + 'tr'):
        trpr = tr.find(W + 'trPr')
        header.append(trpr is not None and trpr.find(W + 'tblHeader') is not None)
        cant.append(trpr is not None and trpr.find(W + 'cantSplit') is not None)
        cells = []
        for tc in tr.findall(W + 'tc'):
            p = tc.find(W + 'p'); jc = p.find(W + 'pPr/' + W + 'jc') if p is not None else None
            cells.append({'text': '\n'.join(text(p) for p in tc.findall(W + 'p')), 'bold': tc.find('.//' + W + 'b') is not None, 'right': jc is not None and jc.get(W + 'val') == 'right'})
        rows.append(cells)
    grid = [int(g.get(W + 'w')) for g in tbl.find(W + 'tblGrid').findall(W + 'gridCol')]
    tables.append({'header': header, 'cantSplit': cant, 'grid': grid, 'rows': rows})
sect = doc.find('.//' + W + 'sectPr')
sz = sect.find(W + 'pgSz'); mar = sect.find(W + 'pgMar')
core = ET.fromstring(z.read('docProps/core.xml'))
def first(root, tag):
    for n in root.iter():
        if n.tag.endswith('}' + tag): return n.text
    return None
hdr = ET.fromstring(z.read('word/header1.xml')); ftr = ET.fromstring(z.read('word/footer1.xml'))
print(json.dumps({'tables': tables, 'page': {'w': int(sz.get(W + 'w')), 'h': int(sz.get(W + 'h')), 'orient': sz.get(W + 'orient'), 'margins': {k: int(mar.get(W + k)) for k in ('top', 'right', 'bottom', 'left')}},
  'header': text(hdr), 'footer': text(ftr), 'title': first(core, 'title'), 'creator': first(core, 'creator'), 'entries': sorted(z.namelist())}, ensure_ascii=False))
`;

export function readDocx(bytes: Uint8Array): DocxPackage {
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', SCRIPT], { input: bytes, maxBuffer: 256 * 1024 * 1024 }).toString('utf8')) as DocxPackage;
}
