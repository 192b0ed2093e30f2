// The display form (tools.md §2.6): what a spreadsheet shows, in the caller's language, with the cell's number
// format when the reader kept it. Expected texts are what Excel and LibreOffice show for these formats.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CellError, FullCell } from '../../tools/formats/model.ts';
import { displayText, isNumeric } from '../../tools/formats/display.ts';

const es = { lang: 'es', words: { true: 'VERDADERO', false: 'FALSO' } } as const;
const en = { lang: 'en', words: { true: 'TRUE', false: 'FALSE' } } as const;
const d = (iso: string) => new Date(iso + 'Z');

test('display: General numbers, dates, booleans, text, errors and empty cells, per language', () => {
  const cases: [Parameters<typeof displayText>[0], string, string][] = [
    [1234.5, '1234,5', '1234.5'],
    [0.1 + 0.2, '0,3', '0.3'],
    [123456789012345678, '123456789012346000', '123456789012346000'],
    [-3, '-3', '-3'],
    [true, 'VERDADERO', 'TRUE'],
    [d('2024-03-15T00:00:00'), '15/03/2024', '2024-03-15'],
    [d('2024-03-15T13:45:00'), '15/03/2024 13:45', '2024-03-15 13:45'],
    [d('1899-12-30T08:05:09'), '08:05:09', '08:05:09'],
    ['00123', '00123', '00123'],
    [new CellError('#N/A'), '#N/A', '#N/A'],
    [null, '', ''],
  ];
  for (const [cell, textEs, textEn] of cases) {
    assert.equal(displayText(cell, es), textEs, String(cell));
    assert.equal(displayText(cell, en), textEn, String(cell));
  }
});

test('display: a cell with its number format shows formatted, with the language marks', () => {
  const cases: [FullCell, string, string][] = [
    [new FullCell(1234.5, '#,##0.00'), '1.234,50', '1,234.50'],
    [new FullCell(0.125, '0.00%'), '12,50%', '12.50%'],
    [new FullCell(-5, '#,##0 ;(#,##0)'), '(5)', '(5)'],
    [new FullCell(1234567.891, '#,##0.00 "€"'), '1.234.567,89 €', '1,234,567.89 €'],
    [new FullCell(1.5, '[h]:mm'), '36:00', '36:00'],
    [new FullCell(12, '"v1.0" 0'), 'v1.0 12', 'v1.0 12'],
    [new FullCell(d('2024-01-15T00:00:00'), 'd-mmm-yy'), '15-Jan-24', '15-Jan-24'],
    // The built-in short date follows the language, as Excel follows the reader's locale.
    [new FullCell(d('2024-01-15T00:00:00'), 'm/d/yy'), '15/01/2024', '2024-01-15'],
    [new FullCell(d('2024-01-15T12:30:00'), 'm/d/yy h:mm'), '15/01/2024 12:30', '2024-01-15 12:30'],
    [new FullCell(0.1 + 0.2, 'General'), '0,3', '0.3'],
    [new FullCell('texto', '@'), 'texto', 'texto'],
    [new FullCell(new CellError('#DIV/0!'), '0.00'), '#DIV/0!', '#DIV/0!'],
    [new FullCell(7, null, 'A1+6'), '7', '7'],
  ];
  for (const [cell, textEs, textEn] of cases) {
    assert.equal(displayText(cell, es), textEs, `${String(cell.value)} ${cell.format}`);
    assert.equal(displayText(cell, en), textEn, `${String(cell.value)} ${cell.format}`);
  }
  assert.ok(isNumeric(new FullCell(3, '0')) && isNumeric(d('2024-01-01T00:00:00')) && !isNumeric('3') && !isNumeric(null));
});
