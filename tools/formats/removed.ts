// Characters a result leaves out, one rule for every writer (tools.md §2.6, issue 13):
// - U+0000 is removed from every result. A NUL ends a line for the sqlite3 and psql clients (the rest of the
//   line and the next cell were read as SQL), ends a C string, and PostgreSQL's text and jsonb refuse it.
// - XML-based results (xlsx, XML, HTML) also lose what XML 1.0 cannot hold: other C0 controls but tab, LF and
//   CR, U+FFFE, U+FFFF and lone surrogates.
// A writer counts what it removed and where the first was; the kernel gives one warning per run for them all
// (Written.removed), however many files the run writes.
import type { Removed } from './model.ts';

const NUL = /\u0000/;
const NUL_ALL = /\u0000/g;
// C0 controls other than tab, LF and CR; U+FFFE and U+FFFF; surrogates that are not part of a pair.
// eslint-disable-next-line no-control-regex
export const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const NOT_XML_ALL = new RegExp(NOT_XML.source, 'g');

/** Removes one kind of characters from the texts of a result, counting them and noting the first cell. */
export class CharFilter {
  count = 0;
  /** Location of the first cell that lost characters, as the caller described it. */
  first: string | null = null;
  /** The table (sheet) of that cell. */
  firstTable = '';
  /** The table whose cells are being written, for the first removal's location. */
  table = '';

  constructor(
    readonly kind: Removed['kind'],
    private readonly any: RegExp,
    private readonly all: RegExp,
  ) {}

  /** Whether `text` holds anything this filter removes (cheap: one regex test). */
  test(text: string): boolean {
    return this.any.test(text);
  }

  clean(text: string, where: () => string): string {
    if (!this.any.test(text)) return text;
    const out = text.replace(this.all, '');
    this.count += text.length - out.length;
    if (this.first === null) {
      this.first = where();
      this.firstTable = this.table;
    }
    return out;
  }

  /** What the result lost, for Written.removed; null when nothing. */
  removed(): Removed | null {
    return this.count === 0 ? null : { kind: this.kind, count: this.count, cell: this.first ?? '', table: this.firstTable };
  }
}

/** U+0000 out of a result of any format. */
export const nulFilter = (table = ''): CharFilter => {
  const f = new CharFilter('nul', NUL, NUL_ALL);
  f.table = table;
  return f;
};

