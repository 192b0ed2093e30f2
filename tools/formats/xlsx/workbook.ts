// The workbook around the sheets: which part is the workbook, its sheets in tab order with their names,
// visibility and parts, the date system, and where shared strings and styles are.
//
// Parts are found as SheetJS finds them (content types first, then the workbook's relationships), so that
// both readers read the same parts. Anything unusual (a binary workbook, a chartsheet or macro sheet in the
// tabs, a relationship to nowhere) is not guessed at: the file goes to SheetJS (`NeedsFallback`).
import { damaged, NeedsFallback } from '../errors.ts';
import type { Visibility } from '../model.ts';
import { attributesOf, nameIs, unescapeOoxml, XmlScanner, type XmlHandler } from '../xml/scan.ts';
import { inflateWhole, type InflateBudget, type ZipArchive } from '../zip/read.ts';

export interface SheetInfo {
  name: string;
  /** Entry name of the sheet's XML part. */
  path: string;
  /** From `state`: `hidden` and `veryHidden` sheets are not the one a one-table tool reads. */
  visibility: Visibility;
}

export interface WorkbookInfo {
  sheets: SheetInfo[];
  date1904: boolean;
  sharedStrings?: string;
  styles?: string;
}

const CT = 'application/vnd.openxmlformats-officedocument.spreadsheetml.';
const WORKBOOK_TYPES = new Set([
  `${CT}sheet.main+xml`,
  `${CT}template.main+xml`,
  'application/vnd.ms-excel.sheet.macroEnabled.main+xml',
  'application/vnd.ms-excel.addin.macroEnabled.main+xml',
]);
const BINARY_WORKBOOK = 'application/vnd.ms-excel.sheet.binary.macroEnabled.main';
const SST_TYPES = new Set([`${CT}sharedStrings+xml`, 'application/vnd.ms-excel.sharedStrings']);
const STYLE_TYPES = new Set([`${CT}styles+xml`, 'application/vnd.ms-excel.styles']);
// Transitional and Strict OOXML name the worksheet relationship differently.
const WORKSHEET_RELS = new Set([
  'http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet',
  'http://purl.oclc.org/ooxml/officeDocument/relationships/worksheet',
]);

/** Start tags with the given local names, with their decoded attributes: for small parts only. */
export function elementsOf(zip: ZipArchive, path: string, budget: InflateBudget, names: string[]): { name: string; attrs: Record<string, string> }[] {
  const entry = zip.get(path);
  if (!entry) throw new NeedsFallback(`part ${path} missing`);
  const out: { name: string; attrs: Record<string, string> }[] = [];
  const handler: XmlHandler = {
    open(b, ln, le, ae) {
      for (const name of names) if (nameIs(b, ln, le, name)) out.push({ name, attrs: attributesOf(b, le, ae) });
    },
    close() {},
    text() {},
  };
  const scanner = new XmlScanner(handler);
  scanner.push(inflateWhole(zip, entry, budget));
  scanner.end();
  return out;
}

const stripSlash = (p: string) => p.replace(/^\/+/, '');

/** `target` relative to the folder of `base` (both part names without a leading `/`), as OPC resolves it. */
export function resolvePart(base: string, target: string): string {
  const parts = target.startsWith('/') ? [] : base.split('/').slice(0, -1);
  for (const seg of stripSlash(target).split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.' && seg !== '') parts.push(seg);
  }
  return parts.join('/');
}

export function readWorkbookInfo(zip: ZipArchive, budget: InflateBudget): WorkbookInfo {
  if (!zip.get('[Content_Types].xml')) throw new NeedsFallback('no [Content_Types].xml (ODS or another package)');
  const types = elementsOf(zip, '[Content_Types].xml', budget, ['Override']).map((e) => e.attrs);
  const partOf = (set: Set<string>) => types.find((a) => set.has(a.ContentType))?.PartName;
  if (types.some((a) => a.ContentType === BINARY_WORKBOOK)) throw new NeedsFallback('binary workbook');
  const wbPart = partOf(WORKBOOK_TYPES);
  if (!wbPart) throw new NeedsFallback('no workbook content type');
  const workbook = stripSlash(wbPart);
  if (!zip.get(workbook)) throw damaged('workbook part missing');

  const slash = workbook.lastIndexOf('/');
  let relsPath = `${workbook.slice(0, slash + 1)}_rels/${workbook.slice(slash + 1)}.rels`;
  if (!zip.get(relsPath)) relsPath = 'xl/_rels/workbook.xml.rels';
  if (!zip.get(relsPath)) throw new NeedsFallback('workbook relationships missing');
  const rels = new Map(elementsOf(zip, relsPath, budget, ['Relationship']).map((e) => [e.attrs.Id, e.attrs]));

  let date1904 = false;
  const sheets: SheetInfo[] = [];
  for (const { name, attrs } of elementsOf(zip, workbook, budget, ['workbookPr', 'sheet'])) {
    if (name === 'workbookPr') {
      if (attrs.date1904 !== undefined) date1904 = attrs.date1904 === '1' || attrs.date1904 === 'true';
      continue;
    }
    const rel = rels.get(attrs.id);
    if (!rel || !WORKSHEET_RELS.has(rel.Type) || rel.TargetMode === 'External') throw new NeedsFallback('a tab that is not a worksheet');
    const path = resolvePart(workbook, unescapeOoxml(rel.Target ?? ''));
    if (!zip.get(path)) throw new NeedsFallback(`sheet part ${path} missing`);
    sheets.push({ name: unescapeOoxml(attrs.name ?? ''), path, visibility: attrs.state === 'hidden' || attrs.state === 'veryHidden' ? attrs.state : 'visible' });
  }
  if (sheets.length === 0) throw damaged('workbook without sheets');

  const sst = partOf(SST_TYPES);
  const styles = partOf(STYLE_TYPES);
  return {
    sheets,
    date1904,
    sharedStrings: sst && zip.get(stripSlash(sst)) ? stripSlash(sst) : undefined,
    styles: styles && zip.get(stripSlash(styles)) ? stripSlash(styles) : undefined,
  };
}
