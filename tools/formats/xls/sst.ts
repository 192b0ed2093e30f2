// The shared string table ([MS-XLS] 2.4.265 SST, 2.4.58 CONTINUE, 2.4.107 EXTSST).
//
// Every text cell is a LABELSST pointing here, each distinct text stored once. A record holds at most 8,224
// bytes; the table goes on in CONTINUE records, where a string may be cut between characters (never inside a
// UTF-16 unit, never inside its 3-byte header): the CONTINUE that carries the rest of its characters starts with
// the flags byte again (0: one byte a character, 1: UTF-16). A string is stored one byte a character when all
// its characters are U+0000–U+00FF, else as UTF-16. EXTSST gives, for every `dsst`-th string, its stream offset
// and its offset inside the record that holds it (from the record's header).
import { ByteSink, CONTINUE, Fields, MAX_PAYLOAD } from './records.ts';

const SST = 0x00fc;
const EXTSST = 0x00ff;
/** EXTSST buckets at most; Excel writes up to 128. */
const MAX_BUCKETS = 128;
const WIDE = /[^\u0000-\u00ff]/;

export class SharedStrings {
  private readonly ids = new Map<string, number>();
  readonly list: string[] = [];
  /** References from cells, duplicates included (the SST's cstTotal). */
  total = 0;

  id(s: string): number {
    this.total++;
    let i = this.ids.get(s);
    if (i === undefined) {
      i = this.list.length;
      this.ids.set(s, i);
      this.list.push(s);
    }
    return i;
  }
}

/** SST, its CONTINUE records and EXTSST, for a table whose SST record starts at stream offset `at`. */
export function sstRecords(strings: SharedStrings, at: number): Buffer[] {
  const sink = new ByteSink();
  const list = strings.list;
  const dsst = Math.max(8, Math.ceil(list.length / MAX_BUCKETS));
  const buckets = new Fields().u16(dsst);
  /** Index in `sink.b` of the open record's header, and its payload bytes so far. */
  let header = 0;
  let used = 0;
  const open = (type: number) => {
    // A whole record's room, so that it never straddles two blocks of the sink.
    sink.room(MAX_PAYLOAD + 4);
    header = sink.at;
    sink.b.writeUInt16LE(type, header);
    sink.at += 4;
    used = 0;
  };
  const close = () => void sink.b.writeUInt16LE(used, header + 2);
  open(SST);
  sink.b.writeUInt32LE(strings.total, sink.at);
  sink.b.writeUInt32LE(list.length, sink.at + 4);
  sink.at += 8;
  used = 8;
  for (let i = 0; i < list.length; i++) {
    const s = list[i];
    const wide = WIDE.test(s);
    const unit = wide ? 2 : 1;
    // The header and at least one character stay together.
    if (MAX_PAYLOAD - used < 3 + unit) {
      close();
      open(CONTINUE);
    }
    if (i % dsst === 0) buckets.u32(at + sink.position).u16(sink.at - header).u16(0);
    const b = sink.b;
    b.writeUInt16LE(s.length, sink.at);
    b[sink.at + 2] = wide ? 1 : 0;
    sink.at += 3;
    used += 3;
    for (let k = 0; k < s.length; ) {
      let n = Math.min(s.length - k, Math.floor((MAX_PAYLOAD - used) / unit));
      if (n === 0) {
        close();
        open(CONTINUE);
        sink.b[sink.at++] = wide ? 1 : 0;
        used = 1;
        continue;
      }
      // A surrogate pair may be cut: readers join the UTF-16 units again.
      sink.b.write(n === s.length ? s : s.substring(k, k + n), sink.at, wide ? 'utf16le' : 'latin1');
      sink.at += n * unit;
      used += n * unit;
      k += n;
    }
  }
  close();
  sink.put(EXTSST, buckets.payload);
  return sink.blocks();
}
