// Table start tags of content.xml found by their bytes (OdsBook's findTables), a tenth of the time a scan of
// the part takes: the package's sheets must be named before any is read, and a sheet is read only when asked.
import { AttrCursor, MAX_TOKEN_BYTES } from '../xml/scan.ts';

const attr = new AttrCursor();

const COLON_TABLE = Buffer.from(':table');
const LT = 0x3c;

/** Bytes that end a tag's name, as the scanner reads names (and the `<` that starts one). */
const endsName = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x2f || c === 0x3e || c === LT;

/**
 * Table start tags (`<x:table …>`, local name `table`) found by their bytes, from office:body on, with their
 * name and style: `<` never appears raw in text or attribute values, so a `<` followed by a name ending in
 * `:table` is such a tag. Markup that could hide one or fake one (a comment, CDATA, a processing instruction),
 * a table without a prefix or one inside another (a table in a cell, which the reader skips) makes the finder
 * `unsure`, and the part is scanned instead.
 */
export class TableTags {
  readonly tags: { name?: string; style?: string }[] = [];
  unsure = false;
  /** A tag cut by the last chunk's end that could matter (a table's, or one whose name was cut), copied. */
  private carry: Buffer | null = null;
  private depth = 0;

  push(chunk: Buffer, from: number): void {
    if (this.carry !== null) {
      // The cut tag completed by the start of this chunk: only tags starting in the carried bytes count here.
      const carry = this.carry;
      this.carry = null;
      const joined = Buffer.concat([carry, chunk.subarray(from, from + JOIN_BYTES)]);
      if (!this.search(joined, 0, carry.length)) {
        // Still cut: a short chunk is carried whole with it; past JOIN_BYTES the tag is no table's.
        if (chunk.length - from > JOIN_BYTES || joined.length > MAX_TOKEN_BYTES) this.unsure = true;
        else this.carry = joined.subarray(joined.lastIndexOf(LT));
        return;
      }
    }
    if (this.unsure) return;
    this.search(chunk, from, chunk.length);
    if (this.unsure) return;
    // A tag whose end is not in this chunk waits for the next one, when it could matter.
    const lt = chunk.lastIndexOf(LT);
    if (lt < from || tagEnd(chunk, lt + 1) >= 0) return;
    let n = lt + 1;
    if (chunk[n] === 0x2f) n++;
    while (n < chunk.length && !endsName(chunk[n])) n++;
    const name = chunk.subarray(lt + 1, n);
    if (n < chunk.length && !name.equals(TABLE) && !(name.length > 6 && name.subarray(name.length - 6).equals(COLON_TABLE)) && name[0] !== 0x21 && name[0] !== 0x3f) return;
    if (chunk.length - lt > MAX_TOKEN_BYTES) this.unsure = true;
    else this.carry = Buffer.from(chunk.subarray(lt));
  }

  /**
   * The table tags of `b` from `i` whose `<` lies before `until`; false when one was cut (its end not in `b`).
   */
  private search(b: Buffer, i: number, until: number): boolean {
    // One regex over the bytes as Latin-1 (one character a byte): Buffer.indexOf per candidate cost three times
    // as much, its call made for every cell's `:table-cell`.
    const text = b.toString('latin1', i, b.length);
    const re = TABLE_MARKS;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (m[0].charCodeAt(0) === LT) {
        // A comment, CDATA, processing instruction, or a table without a prefix.
        this.unsure = true;
        return true;
      }
      const j = i + m.index;
      const after = j + 6;
      let k = j - 1;
      while (k >= i && !endsName(b[k])) k--;
      if (k < i) continue;
      const close = b[k] === 0x2f && k > i && b[k - 1] === LT;
      if ((!close && b[k] !== LT) || (close ? k - 1 : k) >= until) continue;
      if (close) {
        this.depth--;
        continue;
      }
      const gt = tagEnd(b, after);
      if (gt < 0) return false;
      const self = b[gt - 1] === 0x2f;
      if (this.depth > 0) {
        this.unsure = true;
        return true;
      }
      const tag: { name?: string; style?: string } = {};
      const a = attr.reset(b, after, self ? gt - 1 : gt);
      while (a.next()) {
        if (a.is('name')) tag.name = a.value();
        else if (a.is('style-name')) tag.style = a.value();
      }
      this.tags.push(tag);
      if (!self) this.depth++;
    }
    return true;
  }

  end(): void {
    if (this.depth !== 0 || this.carry !== null) this.unsure = true;
  }
}

/** Bytes of the next chunk put after a carried tag: a table's start tag longer than that makes the finder unsure. */
const JOIN_BYTES = 16 * 1024;
const TABLE = Buffer.from('table');

/** Where the tag whose attributes start at `from` ends (its `>`, outside quotes), or -1 when not in `b`. */
function tagEnd(b: Buffer, from: number): number {
  for (let j = from; j < b.length; j++) {
    const c = b[j];
    if (c === 0x3e) return j;
    if (c === 0x22 || c === 0x27) {
      const q = b.indexOf(c, j + 1);
      if (q < 0) return -1;
      j = q;
    }
  }
  return -1;
}

/** What the finder looks for: a name ending in `:table`, and the markup that makes it unsure. */
const TABLE_MARKS = /:table[ \t\r\n>/]|<[!?]|<\/?table[ \t\r\n>/]/g;
