// Cells of a table read from a file that share one value per repeated text or date, as a shared-string table
// would: a column mostly repeats a few names, places or days, and each copy would cost its own string or Date
// (100,000 rows: ~19 MB of repeated texts, ~9 MB of Dates). Both readers (xlsx and CSV) use these. Sharing is
// safe because tools never change a cell in place: they make new values.
//
// Both lookups are bounded: a column past DISTINCT_TEXTS different texts (names, e-mails) stops being looked
// up, at most KEPT_TEXTS texts are kept over all columns and only the first MAX_COLUMNS columns are looked up (a
// CSV record of a million fields cannot make a million lookups cost more than its cells), and dates go to a fixed table of recent ones, so distinct timestamps cost nothing more.

/**
 * Texts looked up for a column before it counts as one of distinct values; the longest looked up; and the texts
 * kept for all columns together.
 */
const DISTINCT_TEXTS = 1024;
const SHORT_TEXT = 100;
const KEPT_TEXTS = 65_536;
/**
 * Texts of a file that are never looked up: the first ones of a file cost little memory unshared, and a small
 * file (a 10 KB CSV: about 1,000 texts) would spend a tenth of its run on lookups that save nothing.
 */
const UNSHARED_TEXTS = 4096;
/** Excel's width: no xlsx sheet has more columns, a CSV file may. */
const MAX_COLUMNS = 16_384;

/**
 * Slots of the shared-date table (a power of two): a table starts with the few a small file needs, and takes
 * all of them once it has been filled that many times.
 */
const DATE_SLOTS = 4096;
const FIRST_DATE_SLOTS = 64;

export class ColumnTexts {
  /** Per column, the texts seen so far; null once the column has too many to be worth it. */
  private readonly seen: (Map<string, string> | null | undefined)[] = [];
  private kept = 0;
  private unshared = 0;

  /** `own` makes the string a text not seen before becomes (the CSV reader copies it out of the file's text). */
  constructor(private readonly own: (text: string) => string = (text) => text) {}

  /** The string for a non-empty `text` of column `col`: the one kept for the same text, or `own(text)`. */
  share(col: number, text: string): string {
    if (text.length > SHORT_TEXT || col >= MAX_COLUMNS || this.unshared++ < UNSHARED_TEXTS) return this.own(text);
    let seen = this.seen[col];
    if (seen === null) return this.own(text);
    if (seen === undefined) {
      // Once nothing more can be kept, a column seen for the first time has nothing to find.
      if (this.kept >= KEPT_TEXTS) return this.own(text);
      seen = this.seen[col] = new Map();
    }
    const same = seen.get(text);
    if (same !== undefined) return same;
    const value = this.own(text);
    if (seen.size >= DISTINCT_TEXTS) this.seen[col] = null;
    else if (this.kept < KEPT_TEXTS) {
      seen.set(value, value);
      this.kept++;
    }
    return value;
  }
}

/** A fixed table of recent dates by a numeric key (a serial number, a time value). */
export class RecentDates {
  // Made at the first date, small: a small file (most runs) never pays for 64 KB of slots it does not fill.
  private dates: (Date | undefined)[] | null = null;
  private keys: Float64Array | null = null;
  private puts = 0;

  private slot(key: number): number {
    return ((key * 1009) >>> 0) & (this.keys!.length - 1);
  }

  /** The date kept for `key`, or undefined. */
  get(key: number): Date | undefined {
    if (this.keys === null) return undefined;
    const slot = this.slot(key);
    return this.keys[slot] === key ? this.dates![slot] : undefined;
  }

  put(key: number, date: Date): void {
    // A table outgrown starts again at full size, empty: what it held is only a cache.
    if (this.keys === null || (this.puts === this.keys.length && this.keys.length < DATE_SLOTS)) {
      const size = this.keys === null ? FIRST_DATE_SLOTS : DATE_SLOTS;
      this.keys = new Float64Array(size).fill(NaN);
      this.dates = new Array<Date | undefined>(size);
    }
    this.puts++;
    const slot = this.slot(key);
    this.keys[slot] = key;
    this.dates![slot] = date;
  }

  /** The date kept with the same time as `date`, or `date` itself, kept from now on. */
  share(date: Date): Date {
    // In days, as a serial number: a time in milliseconds is a multiple of 2^10 for every date at midnight,
    // which would leave all of them four slots.
    const key = date.getTime() / 86_400_000;
    const kept = this.get(key);
    if (kept !== undefined) return kept;
    if (key === key) this.put(key, date);
    return date;
  }
}
