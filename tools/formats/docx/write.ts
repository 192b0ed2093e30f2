// A Word document (WordprocessingML, ISO/IEC 29500) holding one real table, laid out like the PDF of
// excel-to-pdf: the title in each page's header (and the document's title property), `page X of Y` in each
// footer, the title row repeated at the top of every page (`w:tblHeader`), rows never broken across pages
// (`w:cantSplit`), margins of 15 mm, a fixed-layout table as wide as the text area whose columns are
// proportional to their longest line of text, none over 40 % of the width. Numbers and dates are right-aligned;
// line breaks inside cells are kept (`w:br`). Written straight as XML into a ZIP: no document model is built.
import { FirstRows } from '../batch.ts';
import { escapeXmlText, XmlCharFilter } from '../markup.ts';
import { columnLetter, type Written } from '../model.ts';
import { zipBuilder } from '../zip/write.ts';

/** Page sizes in twentieths of a point (portrait width, height). */
const PAGE = { a4: [11906, 16838], letter: [12240, 15840], a3: [16838, 23811] } as const;
/** 15 mm in twentieths of a point. */
const MARGIN = 850;
/** Word's limit on the columns of a table. */
export const DOCX_MAX_COLUMNS = 63;
const MAX_SHARE = 0.4;
const LEVEL = 6;

export interface DocxOptions {
  title: string;
  pageSize: keyof typeof PAGE;
  orientation: 'portrait' | 'landscape';
  fontSize: number;
  /** BCP 47 language of the text (`es-ES`, `en-US`). */
  language: string;
  /** The footer: text before the page number, between it and the page count, and after. */
  pageLabel: [string, string, string];
}

export interface DocxTable {
  name: string;
  /** Titles as shown; null when the table has none. */
  titles: string[] | null;
  /** Data rows. */
  rows: number;
  /**
   * Display text of data row `i`, as wide as the table. Asked for twice per row (column widths first, then the
   * document), so that the table is never held whole as text too.
   */
  row(i: number): string[];
  /** Per cell of `rows`: right-aligned. */
  right: (row: number, col: number) => boolean;
  width: number;
}

export interface DocxResult extends Written {
  /** Characters XML cannot hold, removed (tools.md §2.6). */
  xmlRemoved: { count: number; first: string | null };
}

const NS_W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const NS_R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** Column widths in twips: proportional to `chars`, none over 40 % (or an equal share, when fewer columns). */
export function columnWidths(chars: number[], total: number): number[] {
  const n = chars.length;
  if (n === 0) return [];
  const cap = Math.max(MAX_SHARE, 1 / n) * total;
  const want = chars.map((c) => Math.max(2, c));
  const widths = new Array<number>(n).fill(0);
  const fixed = new Array<boolean>(n).fill(false);
  // Columns past the cap get the cap; the rest share what is left in proportion, until none is past it.
  for (;;) {
    const room = total - widths.reduce((s, w, i) => s + (fixed[i] ? w : 0), 0);
    const asked = want.reduce((s, w, i) => s + (fixed[i] ? 0 : w), 0);
    let changed = false;
    for (let i = 0; i < n; i++) {
      if (fixed[i]) continue;
      widths[i] = (want[i] * room) / asked;
      if (widths[i] > cap) {
        widths[i] = cap;
        fixed[i] = true;
        changed = true;
      }
    }
    if (!changed) break;
  }
  const out = widths.map(Math.floor);
  out[n - 1] += total - out.reduce((a, b) => a + b, 0);
  return out;
}

const text = (s: string) => `<w:t xml:space="preserve">${escapeXmlText(s)}</w:t>`;

/** A paragraph's runs: line breaks as `w:br`, tabs as `w:tab`. */
function runs(s: string, bold: boolean): string {
  if (s === '') return '';
  const rPr = bold ? '<w:rPr><w:b/></w:rPr>' : '';
  const parts = s.split(/\r\n|\r|\n/);
  let out = `<w:r>${rPr}`;
  parts.forEach((line, i) => {
    if (i > 0) out += '<w:br/>';
    const tabs = line.split('\t');
    tabs.forEach((piece, k) => {
      if (k > 0) out += '<w:tab/>';
      if (piece !== '') out += text(piece);
    });
  });
  return out + '</w:r>';
}

function cell(s: string, width: number, right: boolean, bold: boolean): string {
  const pPr = right ? '<w:pPr><w:jc w:val="right"/></w:pPr>' : '';
  return `<w:tc><w:tcPr><w:tcW w:w="${width}" w:type="dxa"/></w:tcPr><w:p>${pPr}${runs(s, bold)}</w:p></w:tc>`;
}

/** The longest line of a text, in characters. */
function longestLine(s: string): number {
  let widest = 0;
  for (const line of s.split('\n')) widest = Math.max(widest, [...line].length);
  return widest;
}

export function writeDocx(table: DocxTable, o: DocxOptions): DocxResult {
  const filter = new XmlCharFilter();
  const clean = (s: string, where: () => string) => filter.clean(s, where);
  const title = clean(o.title, () => 'title');
  const titles = table.titles?.map((t, c) => clean(t, () => `${columnLetter(c)}1`)) ?? null;
  const firstData = titles ? 2 : 1;
  const cleanRow = (r: string[], i: number, f: XmlCharFilter) => r.map((s, c) => f.clean(s, () => `${columnLetter(c)}${i + firstData}`));

  const [w, h] = PAGE[o.pageSize];
  const [pageW, pageH] = o.orientation === 'landscape' ? [h, w] : [w, h];
  const textWidth = pageW - 2 * MARGIN;
  const chars = Array.from({ length: table.width }, (_, c) => (titles ? longestLine(titles[c] ?? '') : 0));
  // Measured as written (without what XML cannot hold), by a filter of its own: the document's counts each once.
  const measured = new XmlCharFilter();
  for (let i = 0; i < table.rows; i++) {
    const r = cleanRow(table.row(i), i, measured);
    for (let c = 0; c < table.width; c++) chars[c] = Math.max(chars[c], longestLine(r[c] ?? ''));
  }
  const widths = columnWidths(chars, textWidth);

  const first = new FirstRows();
  const zip = zipBuilder();
  zip.deflatedText('[Content_Types].xml', LEVEL, CONTENT_TYPES);
  zip.deflatedText('_rels/.rels', LEVEL, ROOT_RELS);
  zip.deflatedText('docProps/core.xml', LEVEL, coreXml(title));
  zip.deflatedText('docProps/app.xml', LEVEL, APP);
  zip.deflatedText('word/_rels/document.xml.rels', LEVEL, DOCUMENT_RELS);
  zip.deflatedText('word/styles.xml', LEVEL, stylesXml(o));
  zip.deflatedText('word/settings.xml', LEVEL, SETTINGS);
  zip.deflatedText('word/header1.xml', LEVEL, `${XML_HEAD}<w:hdr xmlns:w="${NS_W}"><w:p><w:pPr><w:spacing w:after="120"/></w:pPr><w:r><w:rPr><w:b/><w:sz w:val="${2 * (o.fontSize + 2)}"/></w:rPr>${text(title)}</w:r></w:p></w:hdr>`);
  zip.deflatedText('word/footer1.xml', LEVEL, footerXml(o));
  zip.deflated('word/document.xml', LEVEL, (push) => {
    push(`${XML_HEAD}<w:document xmlns:w="${NS_W}" xmlns:r="${NS_R}"><w:body>`);
    if (table.width > 0) {
      const borders = ['top', 'left', 'bottom', 'right', 'insideH', 'insideV'].map((b) => `<w:${b} w:val="single" w:sz="4" w:space="0" w:color="999999"/>`).join('');
      push(
        `<w:tbl><w:tblPr><w:tblW w:w="${textWidth}" w:type="dxa"/><w:tblBorders>${borders}</w:tblBorders><w:tblLayout w:type="fixed"/>` +
          `<w:tblCellMar><w:left w:w="57" w:type="dxa"/><w:right w:w="57" w:type="dxa"/></w:tblCellMar><w:tblLook w:val="0020" w:firstRow="1" w:lastRow="0" w:firstColumn="0" w:lastColumn="0" w:noHBand="1" w:noVBand="1"/></w:tblPr>` +
          `<w:tblGrid>${widths.map((x) => `<w:gridCol w:w="${x}"/>`).join('')}</w:tblGrid>`,
      );
      if (titles) push(`<w:tr><w:trPr><w:cantSplit/><w:tblHeader/></w:trPr>${titles.map((t, c) => cell(t, widths[c], table.right(-1, c), true)).join('')}</w:tr>`);
      let chunk = '';
      for (let i = 0; i < table.rows; i++) {
        const r = cleanRow(table.row(i), i, filter);
        first.take([r]);
        chunk += '<w:tr><w:trPr><w:cantSplit/></w:trPr>';
        for (let c = 0; c < table.width; c++) chunk += cell(r[c] ?? '', widths[c], table.right(i, c), false);
        chunk += '</w:tr>';
        if (chunk.length > 65536) {
          push(chunk);
          chunk = '';
        }
      }
      push(chunk + '</w:tbl>');
    }
    // A document ends with a paragraph, after the table too.
    push(
      `<w:p/><w:sectPr><w:headerReference w:type="default" r:id="rIdHeader"/><w:footerReference w:type="default" r:id="rIdFooter"/>` +
        `<w:pgSz w:w="${pageW}" w:h="${pageH}"${o.orientation === 'landscape' ? ' w:orient="landscape"' : ''}/>` +
        `<w:pgMar w:top="${MARGIN}" w:right="${MARGIN}" w:bottom="${MARGIN}" w:left="${MARGIN}" w:header="425" w:footer="425" w:gutter="0"/></w:sectPr></w:body></w:document>`,
    );
  });
  const bytes = zip.finish();
  return { bytes, preview: first.preview(table.name, titles, table.width, table.rows), xmlRemoved: { count: filter.count, first: filter.first } };
}

const CONTENT_TYPES =
  XML_HEAD +
  '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
  '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>' +
  '<Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/>' +
  '<Override PartName="/word/header1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml"/>' +
  '<Override PartName="/word/footer1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml"/>' +
  '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>' +
  '<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/></Types>';

const ROOT_RELS =
  XML_HEAD +
  '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
  '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>' +
  '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/></Relationships>';

const DOCUMENT_RELS =
  XML_HEAD +
  '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rIdStyles" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>' +
  '<Relationship Id="rIdSettings" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings" Target="settings.xml"/>' +
  '<Relationship Id="rIdHeader" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header1.xml"/>' +
  '<Relationship Id="rIdFooter" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer" Target="footer1.xml"/></Relationships>';

const APP = `${XML_HEAD}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>spreadsheet-tools</Application></Properties>`;

const SETTINGS = `${XML_HEAD}<w:settings xmlns:w="${NS_W}"><w:defaultTabStop w:val="708"/><w:compat><w:compatSetting w:name="compatibilityMode" w:uri="http://schemas.microsoft.com/office/word" w:val="15"/></w:compat></w:settings>`;

function coreXml(title: string): string {
  return (
    XML_HEAD +
    '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
    `<dc:title>${escapeXmlText(title)}</dc:title></cp:coreProperties>`
  );
}

function stylesXml(o: DocxOptions): string {
  return (
    `${XML_HEAD}<w:styles xmlns:w="${NS_W}"><w:docDefaults>` +
    `<w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:eastAsia="Calibri" w:cs="Calibri"/><w:sz w:val="${2 * o.fontSize}"/><w:szCs w:val="${2 * o.fontSize}"/><w:lang w:val="${o.language}"/></w:rPr></w:rPrDefault>` +
    '<w:pPrDefault><w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults>' +
    '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>' +
    '<w:style w:type="table" w:default="1" w:styleId="TableNormal"><w:name w:val="Normal Table"/><w:tblPr><w:tblInd w:w="0" w:type="dxa"/><w:tblCellMar><w:top w:w="0" w:type="dxa"/><w:left w:w="108" w:type="dxa"/><w:bottom w:w="0" w:type="dxa"/><w:right w:w="108" w:type="dxa"/></w:tblCellMar></w:tblPr></w:style>' +
    '</w:styles>'
  );
}

function footerXml(o: DocxOptions): string {
  const [before, between, after] = o.pageLabel;
  const plain = (s: string) => (s === '' ? '' : `<w:r>${text(s)}</w:r>`);
  const field = (instr: string) => `<w:fldSimple w:instr=" ${instr} "><w:r><w:t>1</w:t></w:r></w:fldSimple>`;
  return `${XML_HEAD}<w:ftr xmlns:w="${NS_W}"><w:p><w:pPr><w:jc w:val="right"/></w:pPr>${plain(before)}${field('PAGE')}${plain(between)}${field('NUMPAGES')}${plain(after)}</w:p></w:ftr>`;
}
