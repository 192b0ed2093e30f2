import tool from './tools/convert/excel-to-sql.ts';
import { runTool, inputFile } from './test/helpers/run-tool.ts';
import { xlsxPackage, row } from './test/helpers/xlsx-package.ts';
import { load } from './test/helpers/databases.ts';
const codes = [...Array.from({length: 31}, (_, i) => i + 1), 0x7f, 0x85, 0x2028, 0x2029, 0xfeff];
const hx = (c: number) => `_x${c.toString(16).padStart(4, '0').toUpperCase()}_`;
const rows = [row(1, '<c r="A1" t="inlineStr"><is><t>t</t></is></c>'), ...codes.map((c, i) => row(i + 2, `<c r="A${i + 2}" t="inlineStr"><is><t>a${c < 0x20 ? hx(c) : String.fromCharCode(c)}b\nx${c < 0x20 ? hx(c) : String.fromCharCode(c)}</t></is></c>`))];
const bytes = xlsxPackage({ sheets: [{ name: 'D', xml: rows.join('') }] });
for (const [dialect, engine] of [['standard','sqlite'],['standard','postgres'],['postgres','postgres'],['mysql','mariadb']] as const) {
  const out = await runTool(tool as any, [inputFile('t.xlsx', bytes)], { dialect });
  const sql = new TextDecoder().decode(out.files[0].bytes);
  try {
    const back = await load(engine, sql, 'datos');
    const bad = codes.filter((c, i) => back.rows[i]?.[0] !== `a${String.fromCharCode(c)}b\nx${String.fromCharCode(c)}`);
    console.log(dialect, engine, 'rows', back.rows.length, 'bad', bad.map(c => c.toString(16)));
  } catch (e) { console.log(dialect, engine, 'ERR', String(e).slice(0, 300)); }
}
