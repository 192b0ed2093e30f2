// The peers: other programs doing the same job as a tool, each one a shell command timed as a child process.
// A peer whose programs are not installed is left out with a note (bench/install-peers installs them all).
//
// `same` says whether the peer does the same job as the service (same input file, same kind of result). A
// peer that does a neighbouring job (reads the CSV instead of the workbook, writes CSV where the tool writes
// xlsx, fills a database instead of writing a script) is shown, labelled, and kept out of the ratio.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Debian's Python, which has Debian's pandas; the `python3` on PATH may be another one without it. */
export const PYTHON = '/usr/bin/python3';
const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const PANDAS_JOB = join(BENCH_DIR, 'peers', 'pandas_job.py');
const SHEETJS_JOB = join(BENCH_DIR, 'peers', 'sheetjs-csv-to-xlsx.mjs');

export interface PeerIo {
  inputs: string[];
  /** An empty folder for this run's results. */
  out: string;
}

export interface Peer {
  name: string;
  same: boolean;
  /** What the peer does differently, when it does not do the same job. */
  note?: string;
  /** Programs (on PATH) and Python modules (for PYTHON) it needs. */
  needs: { bin?: string[]; py?: string[] };
  /** The shell command of one run. */
  command(io: PeerIo): string;
  /** Extra environment of the command. */
  env?: Record<string, string>;
  /** Input file names this peer reads instead of the task's (a neighbouring job: never `same`). */
  inputs?: string[];
}

/** Single-quoted for sh. */
export const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const stem = (p: string) => basename(p).replace(/\.[^.]+$/, '');
const outFile = (io: PeerIo, ext: string) => q(join(io.out, `${stem(io.inputs[0])}.${ext}`));
const all = (io: PeerIo) => io.inputs.map(q).join(' ');

/** LibreOffice with a profile of its own, so that it never hands the job to another running instance. */
export const LIBREOFFICE_PROFILE = join(BENCH_DIR, 'out', 'libreoffice-profile');
const soffice = (io: PeerIo, to: string, infilter?: string) =>
  `soffice --headless --norestore --nolockcheck -env:UserInstallation=file://${LIBREOFFICE_PROFILE} ${infilter ? `--infilter=${q(infilter)} ` : ''}--convert-to ${q(to)} --outdir ${q(io.out)} ${all(io)}`;
/** UTF-8, comma, double quote: the CSV filter options LibreOffice needs to read and write like the others. */
const LO_CSV = 'Text - txt - csv (StarCalc):44,34,76,1';

const pandas = (job: string, name = 'pandas', extra: Partial<Peer> = {}): Peer => ({
  name,
  same: true,
  needs: { py: job.includes('xlsx') || job === 'stack' ? ['pandas', 'openpyxl', 'xlsxwriter', 'xlrd'] : ['pandas', 'openpyxl', 'xlrd'] },
  command: (io) => `${PYTHON} ${q(PANDAS_JOB)} ${job} ${q(io.out)} ${all(io)}`,
  ...extra,
});

export const peers = {
  ssconvertTo: (ext: 'csv' | 'xlsx', extra: Partial<Peer> = {}): Peer => ({
    name: 'ssconvert',
    same: true,
    needs: { bin: ['ssconvert'] },
    command: (io) => `ssconvert ${ext === 'xlsx' ? '-T Gnumeric_Excel:xlsx2 ' : ''}${q(io.inputs[0])} ${outFile(io, ext)}`,
    ...extra,
  }),
  /** A workbook converted as a whole by Gnumeric (xlsx-to-xls, excel-to-ods). */
  ssconvertBook: (to: 'xls' | 'ods'): Peer => ({
    name: 'ssconvert',
    same: true,
    needs: { bin: ['ssconvert'] },
    command: (io) => `ssconvert -T ${to === 'xls' ? 'Gnumeric_Excel:excel_biff8' : 'Gnumeric_OpenCalc:odf'} ${q(io.inputs[0])} ${outFile(io, to)}`,
  }),
  libreofficeToOds: (): Peer => ({ name: 'LibreOffice', same: true, needs: { bin: ['soffice'] }, command: (io) => soffice(io, 'ods') }),
  xlsx2csv: (): Peer => ({ name: 'xlsx2csv', same: true, needs: { bin: ['xlsx2csv'] }, command: (io) => `xlsx2csv ${q(io.inputs[0])} ${outFile(io, 'csv')}` }),
  libreofficeToCsv: (): Peer => ({ name: 'LibreOffice', same: true, needs: { bin: ['soffice'] }, command: (io) => soffice(io, `csv:${LO_CSV}`) }),
  libreofficeToXlsx: (): Peer => ({ name: 'LibreOffice', same: true, needs: { bin: ['soffice'] }, command: (io) => soffice(io, 'xlsx') }),
  libreofficeCsvToXlsx: (): Peer => ({ name: 'LibreOffice', same: true, needs: { bin: ['soffice'] }, command: (io) => soffice(io, 'xlsx', 'CSV:44,34,76,1') }),
  libreofficeToPdf: (): Peer => ({ name: 'LibreOffice', same: true, needs: { bin: ['soffice'] }, command: (io) => soffice(io, 'pdf') }),
  // Writer opens no workbook: it converts the same table as an HTML page (docx.html, written beside the inputs).
  libreofficeHtmlToDocx: (): Peer => ({
    name: 'LibreOffice Writer',
    same: true,
    note: 'the same rows as an HTML table, converted by Writer',
    needs: { bin: ['soffice'] },
    command: (io) => soffice({ ...io, inputs: [join(dirname(io.inputs[0]), 'docx.html')] }, 'docx:MS Word 2007 XML', 'HTML (StarWriter)'),
  }),
  in2csv: (): Peer => ({ name: 'csvkit in2csv', same: true, needs: { bin: ['in2csv'] }, command: (io) => `in2csv ${q(io.inputs[0])} > ${outFile(io, 'csv')}` }),
  in2csvJson: (): Peer => ({
    name: 'csvkit in2csv | csvjson',
    same: true,
    note: 'csvjson infers the types again from in2csv text',
    needs: { bin: ['in2csv', 'csvjson'] },
    command: (io) => `in2csv ${q(io.inputs[0])} | csvjson -i 2 > ${outFile(io, 'json')}`,
  }),
  csvjson: (): Peer => ({ name: 'csvkit csvjson', same: true, needs: { bin: ['csvjson'] }, command: (io) => `csvjson -i 2 ${q(io.inputs[0])} > ${outFile(io, 'json')}` }),
  millerJson: (extra: Partial<Peer> = {}): Peer => ({
    name: 'miller',
    same: true,
    needs: { bin: ['mlr'] },
    command: (io) => `mlr --icsv --ojson cat ${q(io.inputs[0])} > ${outFile(io, 'json')}`,
    ...extra,
  }),
  sheetjs: (): Peer => ({ name: 'SheetJS dense', same: true, needs: { bin: ['node'] }, command: (io) => `node ${q(SHEETJS_JOB)} ${q(io.inputs[0])} ${outFile(io, 'xlsx')}` }),
  csvstack: (): Peer => ({
    name: 'csvkit csvstack',
    same: false,
    note: 'writes CSV, not xlsx',
    needs: { bin: ['csvstack'] },
    command: (io) => `csvstack --filenames -n 'Archivo de origen' ${all(io)} > ${q(join(io.out, 'combinado.csv'))}`,
  }),
  in2csvStack: (): Peer => ({
    name: 'csvkit in2csv + csvstack',
    same: false,
    note: 'writes CSV, not xlsx',
    needs: { bin: ['in2csv', 'csvstack'] },
    command: (io) =>
      `${io.inputs.map((p, i) => `in2csv ${q(p)} > ${q(join(io.out, `p${i}.csv`))}`).join(' && ')} && csvstack --filenames -n 'Archivo de origen' ${io.inputs.map((_, i) => q(join(io.out, `p${i}.csv`))).join(' ')} > ${q(join(io.out, 'combinado.csv'))}`,
  }),
  millerStack: (): Peer => ({
    name: 'miller',
    same: false,
    note: 'writes CSV, not xlsx',
    needs: { bin: ['mlr'] },
    command: (io) => `mlr --csv put '\${Archivo de origen} = FILENAME' ${all(io)} > ${q(join(io.out, 'combinado.csv'))}`,
  }),
  millerSplitGroup: (column: string): Peer => ({
    name: 'miller split -g',
    same: true,
    needs: { bin: ['mlr'] },
    command: (io) => `mlr --csv --from ${q(io.inputs[0])} split -g ${q(column)} --prefix ${q(join(io.out, 'grupo'))}`,
  }),
  millerJoin: (key: string): Peer => ({
    name: 'miller join',
    same: true,
    needs: { bin: ['mlr'] },
    // The lookup table (-f) held in memory, the main one streamed; --ul keeps main rows without a match (a left join).
    command: (io) => `mlr --icsv --ocsv join --ul -j ${q(key)} -f ${q(io.inputs[1])} ${q(io.inputs[0])} > ${q(join(io.out, 'combinado.csv'))}`,
  }),
  millerPut: (expression: string): Peer => ({
    name: 'miller put',
    same: true,
    needs: { bin: ['mlr'] },
    command: (io) => `mlr --csv put ${q(expression)} ${q(io.inputs[0])} > ${q(join(io.out, 'unido.csv'))}`,
  }),
  millerNest: (field: string): Peer => ({
    name: 'miller nest',
    same: true,
    needs: { bin: ['mlr'] },
    command: (io) => `mlr --csv nest --explode --values --across-fields -f ${q(field)} --nested-fs ' ' ${q(io.inputs[0])} > ${q(join(io.out, 'dividido.csv'))}`,
  }),
  iconvMiller: (): Peer => ({
    name: 'iconv | miller',
    same: true,
    needs: { bin: ['iconv', 'mlr'] },
    command: (io) => `iconv -f UTF-8 -t WINDOWS-1252 ${q(io.inputs[0])} | mlr --icsv --ocsv --ofs ';' cat > ${q(join(io.out, 'convertido.csv'))}`,
  }),
  millerSplitRows: (n: number): Peer => ({
    name: 'miller split -n',
    same: true,
    needs: { bin: ['mlr'] },
    command: (io) => `mlr --csv --from ${q(io.inputs[0])} split -n ${n} --prefix ${q(join(io.out, 'parte'))}`,
  }),
  csvsqlDb: (): Peer => ({
    name: 'csvkit in2csv | csvsql --insert',
    same: false,
    note: 'fills a SQLite database, writes no script',
    needs: { bin: ['in2csv', 'csvsql'] },
    command: (io) => `in2csv ${q(io.inputs[0])} | csvsql --db ${q(`sqlite:///${join(io.out, 'datos.db')}`)} --insert --tables datos`,
  }),
  sqliteDump: (csv: string): Peer => ({
    name: 'sqlite3 .import + .dump',
    same: false,
    note: 'reads the CSV; every column TEXT',
    inputs: [csv],
    needs: { bin: ['sqlite3'] },
    command: (io) => `sqlite3 :memory: '.import --csv ${io.inputs[0].replace(/'/g, '')} datos' '.output ${join(io.out, 'datos.sql').replace(/'/g, '')}' '.dump datos'`,
  }),
  sqliteLoadExport: (same = true): Peer => ({
    name: 'sqlite3 .read + CSV export',
    same,
    ...(same ? {} : { note: 'writes CSV' }),
    needs: { bin: ['sqlite3'] },
    command: (io) => `sqlite3 :memory: ${q(`.read ${io.inputs[0].replace(/'/g, '')}`)} '.headers on' '.mode csv' ${q(`.output ${join(io.out, 'datos.csv')}`)} 'SELECT * FROM datos;'`,
  }),
  pandas,
};

const binCache = new Map<string, boolean>();
const pyCache = new Map<string, boolean>();

function hasBin(bin: string): boolean {
  if (!binCache.has(bin)) {
    binCache.set(bin, process.env.PATH?.split(':').some((dir) => dir && existsSync(join(dir, bin))) ?? false);
  }
  return binCache.get(bin)!;
}

function hasPy(mod: string): boolean {
  if (!pyCache.has(mod)) {
    let ok = false;
    try {
      execFileSync(PYTHON, ['-c', `import ${mod}`], { stdio: 'ignore', timeout: 30_000 });
      ok = true;
    } catch {
      ok = false;
    }
    pyCache.set(mod, ok);
  }
  return pyCache.get(mod)!;
}

/** The programs a peer lacks, or an empty list when it can run. */
export function missing(peer: Peer): string[] {
  return [...(peer.needs.bin ?? []).filter((b) => !hasBin(b)), ...(peer.needs.py ?? []).filter((m) => !hasPy(m)).map((m) => `python3-${m}`)];
}

/** The first non-empty line a command prints (some print their version on stderr). */
function firstLine(cmd: string, args: string[]): string | null {
  const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  return `${r.stdout ?? ''}\n${r.stderr ?? ''}`.split('\n').find((l) => l.trim())?.trim() ?? null;
}

/** Version of every peer program that is installed (null when it is not). */
export function peerVersions(): Record<string, string | null> {
  const pyVersion = (mod: string) => (hasPy(mod) ? firstLine(PYTHON, ['-c', `import ${mod}; print(${mod}.__version__)`]) : null);
  const bin = (b: string, args: string[]) => (hasBin(b) ? firstLine(b, args) : null);
  const sheetjs = JSON.parse(readFileSync(join(BENCH_DIR, '..', 'node_modules', 'xlsx', 'package.json'), 'utf8')) as { version: string };
  return {
    ssconvert: bin('ssconvert', ['--version']),
    xlsx2csv: bin('xlsx2csv', ['--version']),
    libreoffice: bin('soffice', ['--version']),
    python: existsSync(PYTHON) ? firstLine(PYTHON, ['--version']) : null,
    pandas: pyVersion('pandas'),
    openpyxl: pyVersion('openpyxl'),
    xlsxwriter: pyVersion('xlsxwriter'),
    xlrd: pyVersion('xlrd'),
    csvkit: bin('in2csv', ['--version']),
    miller: bin('mlr', ['--version']),
    sqlite3: bin('sqlite3', ['--version']),
    sheetjs: sheetjs.version,
    pdfinfo: bin('pdfinfo', ['-v']),
    time: existsSync('/usr/bin/time') ? firstLine('/usr/bin/time', ['--version']) : null,
  };
}
