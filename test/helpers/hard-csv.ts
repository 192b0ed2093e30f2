// Generated CSV files full of what makes CSV hard, for comparing the records path with the table path:
// quoted and unquoted fields, doubled quotes, quotes in the middle or after a closing quote, delimiters and
// line ends inside quotes, CR/LF/CRLF mixes, ragged and blank rows, values that type (numbers, dates,
// booleans), BOMs, UTF-16, Windows-1252 and stray bytes. Seeded: the same files on every run.

/** A function giving the bytes of the next generated file. */
export function generator(seed: number) {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const atoms = ['a', 'ñ', '€', '😀', '"', '""', ',', ';', '\t', '|', '\r', '\n', '\r\n', ' ', '', 'x y', '1,5', '"q"', 'a"b', '12', '-0.5', '2024-02-29', '31/12/2023 10:00', 'true', 'Falso', '\\', '\u0001', '\u001f', '\b', '\f', '\u2028', '1.50', '0.0000001', '-0', '.5', '1899-12-30 07:05'];
  const text = () => {
    const delim = pick([',', ';', '\t', '|']);
    let out = rnd() < 0.2 ? '\uFEFF' : '';
    const rows = 1 + Math.floor(rnd() * 8);
    for (let r = 0; r < rows; r++) {
      const fields: string[] = [];
      const width = 1 + Math.floor(rnd() * 4);
      for (let c = 0; c < width; c++) {
        let v = '';
        for (let k = Math.floor(rnd() * 3); k > 0; k--) v += pick(atoms);
        const mode = rnd();
        if (mode < 0.3) v = '"' + v.replaceAll('"', '""') + '"';
        else if (mode < 0.35) v = '"' + v + '"' + pick(['x', '', '"']);
        fields.push(v);
      }
      out += fields.join(rnd() < 0.9 ? delim : pick([',', ';'])) + pick(['\n', '\r\n', '\r', '\n', '']);
    }
    return out;
  };
  const bytes = (t: string): Uint8Array => {
    const m = rnd();
    let b: Uint8Array = m < 0.1 ? Buffer.from(t, 'utf16le') : m < 0.15 ? Buffer.from(t, 'latin1') : Buffer.from(t, 'utf8');
    if (rnd() < 0.05) b = Buffer.concat([b, Buffer.from([pick([0x80, 0x9f, 0xff, 0xc3, 0, 0xe2])])]);
    if (rnd() < 0.03) b = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]);
    return b;
  };
  return () => bytes(text());
}

