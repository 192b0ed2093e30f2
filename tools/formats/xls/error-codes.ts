// The text of each BIFF error code ([MS-XLS] 2.5.10 BErr), as Excel shows it; also the codes SheetJS gives
// error cells of every format it reads.
export const ERROR_TEXT: Readonly<Record<number, string>> = Object.freeze({
  0x00: '#NULL!',
  0x07: '#DIV/0!',
  0x0f: '#VALUE!',
  0x17: '#REF!',
  0x1d: '#NAME?',
  0x24: '#NUM!',
  0x2a: '#N/A',
  0x2b: '#GETTING_DATA',
});
