// The tasks of `npm run bench`: one tool job on one generated input, and the peers that do the same job on
// the same file. A task whose tool is not registered yet is skipped with a note, so the list can name every
// tool the issues ask about and pick each one up as it lands.
import { CATEGORY, LIMIT_ROWS, XLS_MAX_DATA_ROWS } from './inputs.ts';
import { peers, type Peer } from './peers.ts';

export interface Task {
  /** Matched by BENCH_ONLY (substring). */
  name: string;
  tool: string;
  options: Record<string, unknown>;
  /** Input file names in the inputs folder; the service and every peer read these same files. */
  inputs: string[];
  /** Multipart field of the files. */
  field: 'file' | 'files';
  /** A further field for the input at the same position (merge-by-key's `lookup-file`); the main field elsewhere. */
  fields?: (string | undefined)[];
  peers: Peer[];
  /** Rows the task reads, for the label. */
  rows: number;
  /** Count the pages of the PDF results (pdfinfo). */
  pdf?: boolean;
  /** The 1,000,000-row task: it only has to succeed within the input limit; no peers, no in-process runs. */
  huge?: boolean;
}

export const SPLIT_ROWS = 10_000;

export function tasks(rows: number, parts: number, pdfRows: number): Task[] {
  const per = Math.ceil(rows / parts);
  const partNames = (ext: string) => Array.from({ length: parts }, (_, i) => `parte-${i + 1}.${ext}`);
  const xlsRows = Math.min(rows, XLS_MAX_DATA_ROWS);
  const groupEnv = { BENCH_GROUP_COLUMN: CATEGORY };
  const chunkEnv = { BENCH_CHUNK_ROWS: String(SPLIT_ROWS) };
  const keyEnv = { BENCH_KEY_COLUMN: 'id' };
  return [
    {
      name: 'excel-to-csv xlsx',
      tool: 'excel-to-csv',
      options: {},
      inputs: ['medio.xlsx'],
      field: 'file',
      rows,
      peers: [peers.ssconvertTo('csv'), peers.xlsx2csv(), peers.libreofficeToCsv(), peers.pandas('csv'), peers.in2csv()],
    },
    {
      // The same job on the file our own writer made (inline strings): no reader may gain from the layout.
      name: 'excel-to-csv xlsx-by-service',
      tool: 'excel-to-csv',
      options: {},
      inputs: ['medio-servicio.xlsx'],
      field: 'file',
      rows,
      peers: [peers.ssconvertTo('csv'), peers.xlsx2csv(), peers.pandas('csv')],
    },
    {
      name: 'excel-to-csv xls',
      tool: 'excel-to-csv',
      options: {},
      inputs: ['medio.xls'],
      field: 'file',
      rows: xlsRows,
      // pandas needs xlrd ≥ 2 for .xls, Debian 12 ships 1.2: csvkit reads it with xlrd directly.
      peers: [peers.ssconvertTo('csv'), peers.libreofficeToCsv(), peers.in2csv()],
    },
    {
      name: 'xls-to-xlsx xls',
      tool: 'xls-to-xlsx',
      options: {},
      inputs: ['medio.xls'],
      field: 'file',
      rows: xlsRows,
      peers: [peers.ssconvertTo('xlsx'), peers.libreofficeToXlsx()],
    },
    {
      name: 'ods-to-excel ods',
      tool: 'ods-to-excel',
      options: {},
      inputs: ['medio.ods'],
      field: 'file',
      rows,
      peers: [peers.ssconvertTo('xlsx'), peers.libreofficeToXlsx()],
    },
    {
      name: 'csv-to-excel csv',
      tool: 'csv-to-excel',
      options: {},
      inputs: ['medio.csv'],
      field: 'file',
      rows,
      peers: [peers.sheetjs(), peers.pandas('xlsx', 'pandas+xlsxwriter'), peers.libreofficeCsvToXlsx(), peers.ssconvertTo('xlsx')],
    },
    {
      name: 'excel-to-json xlsx',
      tool: 'excel-to-json',
      options: {},
      inputs: ['medio.xlsx'],
      field: 'file',
      rows,
      peers: [peers.pandas('json'), peers.in2csvJson()],
    },
    {
      // miller reads CSV only: its fair comparison is excel-to-json on the CSV, not on the workbook.
      name: 'excel-to-json csv',
      tool: 'excel-to-json',
      options: {},
      inputs: ['medio.csv'],
      field: 'file',
      rows,
      peers: [peers.millerJson(), peers.pandas('json'), peers.csvjson()],
    },
    {
      name: 'merge-stack csv',
      tool: 'merge-stack',
      options: {},
      inputs: partNames('csv'),
      field: 'files',
      rows: per * parts,
      peers: [peers.pandas('stack', 'pandas concat+xlsxwriter'), peers.csvstack(), peers.millerStack()],
    },
    {
      name: 'merge-stack xlsx',
      tool: 'merge-stack',
      options: {},
      inputs: partNames('xlsx'),
      field: 'files',
      rows: per * parts,
      peers: [peers.pandas('stack', 'pandas concat+xlsxwriter'), peers.in2csvStack()],
    },
    {
      name: 'split-by-column xlsx',
      tool: 'split-by-column',
      options: { column: CATEGORY },
      inputs: ['medio.xlsx'],
      field: 'file',
      rows,
      peers: [peers.pandas('group-xlsx', 'pandas groupby+xlsxwriter', { env: groupEnv })],
    },
    {
      name: 'split-by-column csv',
      tool: 'split-by-column',
      options: { column: CATEGORY, format: 'csv' },
      inputs: ['medio.csv'],
      field: 'file',
      rows,
      peers: [peers.millerSplitGroup(CATEGORY), peers.pandas('group-csv', 'pandas groupby', { env: groupEnv })],
    },
    {
      name: 'split-rows xlsx',
      tool: 'split-rows',
      options: { 'rows-per-file': SPLIT_ROWS },
      inputs: ['medio.xlsx'],
      field: 'file',
      rows,
      peers: [peers.pandas('chunks-xlsx', 'pandas chunks+xlsxwriter', { env: chunkEnv })],
    },
    {
      name: 'split-rows csv',
      tool: 'split-rows',
      options: { 'rows-per-file': SPLIT_ROWS, format: 'csv' },
      inputs: ['medio.csv'],
      field: 'file',
      rows,
      peers: [peers.millerSplitRows(SPLIT_ROWS), peers.pandas('chunks-csv', 'pandas chunks', { env: chunkEnv })],
    },
    {
      name: 'merge-by-key csv',
      tool: 'merge-by-key',
      options: { key: 'id' },
      inputs: ['medio.csv', 'clave.csv'],
      field: 'file',
      fields: [undefined, 'lookup-file'],
      rows,
      peers: [peers.millerJoin('id'), peers.pandas('merge-csv', 'pandas merge', { env: keyEnv })],
    },
    {
      name: 'merge-by-key xlsx',
      tool: 'merge-by-key',
      options: { key: 'id' },
      inputs: ['medio.xlsx', 'clave.xlsx'],
      field: 'file',
      fields: [undefined, 'lookup-file'],
      rows,
      peers: [peers.pandas('merge-xlsx', 'pandas merge+xlsxwriter', { env: keyEnv })],
    },
    {
      name: 'merge-columns csv',
      tool: 'merge-columns',
      options: { columns: 'cliente,provincia' },
      inputs: ['medio.csv'],
      field: 'file',
      rows,
      peers: [peers.millerPut('$cliente_provincia = $cliente . " " . $provincia')],
    },
    {
      name: 'split-column csv',
      tool: 'split-column',
      options: { column: 'cliente' },
      inputs: ['medio.csv'],
      field: 'file',
      rows,
      peers: [peers.millerNest('cliente')],
    },
    {
      name: 'convert-csv csv to windows-1252 ;',
      tool: 'convert-csv',
      options: { encoding: 'windows-1252' },
      inputs: ['medio.csv'],
      field: 'file',
      rows,
      peers: [peers.iconvMiller()],
    },
    {
      name: 'excel-to-sql xlsx',
      tool: 'excel-to-sql',
      options: {},
      inputs: ['medio.xlsx'],
      field: 'file',
      rows,
      peers: [peers.pandas('sql', 'pandas to_sql+iterdump'), peers.csvsqlDb(), peers.sqliteDump('medio.csv')],
    },
    {
      name: 'xml-to-excel xml',
      tool: 'xml-to-excel',
      options: {},
      inputs: ['medio.xml'],
      field: 'file',
      rows,
      peers: [peers.pandas('xlsx', 'pandas read_xml+xlsxwriter', { needs: { py: ['pandas', 'lxml', 'xlsxwriter'] } })],
    },
    {
      name: 'html-to-excel html',
      tool: 'html-to-excel',
      options: {},
      inputs: ['medio.html'],
      field: 'file',
      rows,
      peers: [peers.pandas('xlsx', 'pandas read_html+xlsxwriter', { needs: { py: ['pandas', 'lxml', 'xlsxwriter'] } })],
    },
    {
      name: 'sql-to-excel, standard script → csv',
      tool: 'sql-to-excel',
      options: { format: 'csv' },
      inputs: ['medio.sql'],
      field: 'file',
      rows,
      peers: [peers.sqliteLoadExport()],
    },
    {
      name: 'sql-to-excel, standard script → xlsx',
      tool: 'sql-to-excel',
      options: {},
      inputs: ['medio.sql'],
      field: 'file',
      rows,
      peers: [peers.sqliteLoadExport(false)],
    },
    {
      // Read whole with formats, merges and widths (cells: 'full'), written as BIFF8.
      name: 'xlsx-to-xls xlsx',
      tool: 'xlsx-to-xls',
      options: {},
      inputs: ['medio-xls.xlsx'],
      field: 'file',
      rows: xlsRows,
      peers: [peers.ssconvertBook('xls')],
    },
    {
      name: 'excel-to-ods xlsx',
      tool: 'excel-to-ods',
      options: {},
      inputs: ['medio.xlsx'],
      field: 'file',
      rows,
      peers: [peers.ssconvertBook('ods'), peers.libreofficeToOds()],
    },
    {
      name: 'excel-to-pdf xlsx',
      tool: 'excel-to-pdf',
      options: {},
      inputs: ['pdf.xlsx'],
      field: 'file',
      rows: Math.min(rows, pdfRows),
      pdf: true,
      peers: [peers.libreofficeToPdf()],
    },
    {
      name: 'excel-to-docx xlsx',
      tool: 'excel-to-docx',
      options: {},
      inputs: ['pdf.xlsx'],
      field: 'file',
      rows: Math.min(rows, pdfRows),
      peers: [peers.libreofficeHtmlToDocx()],
    },
  ];
}

/** BENCH_HUGE=1: 1,000,000 rows (titles included) each way, and a 25 MB upload, with the service's default limits. */
export function hugeTasks(): Task[] {
  const base = { options: {}, field: 'file' as const, rows: 999_999, peers: [], huge: true };
  return [
    { ...base, name: 'huge csv-to-excel', tool: 'csv-to-excel', inputs: ['enorme.csv'] },
    { ...base, name: 'huge excel-to-csv', tool: 'excel-to-csv', inputs: ['enorme.xlsx'] },
    { ...base, name: 'huge csv-to-excel, 25 MB upload', tool: 'csv-to-excel', inputs: ['limite.csv'], rows: LIMIT_ROWS },
  ];
}
