import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stackTables } from '../helpers/stack-tables.ts';
import type { TableData } from '../../tools/formats/model.ts';

type Msg = { level: string; key: string; params?: Record<string, string | number> };
function collector() {
  const msgs: Msg[] = [];
  return { msgs, report: (level: string, key: string, params?: Record<string, string | number>) => void msgs.push({ level, key, params }) };
}
const t = (name: string, header: string[] | null, rows: TableData['rows']): TableData => ({ name, header, rows });

test('stackTables by name: union of columns in first-seen order, titles as first seen, warnings per table', () => {
  const c = collector();
  const out = stackTables(
    [
      { label: 'a.csv', table: t('a', ['Nombre', 'Importe', 'Fecha'], [['x', 1, null]]) },
      { label: 'b.csv', table: t('b', [' importe', 'NOMBRE ', 'Región'], [[2, 'y', 'Sur']]) },
    ],
    { name: 'm', hasHeader: true, matchByName: true, labelColumn: 'Origen', report: c.report },
  );
  assert.deepEqual(out, {
    name: 'm',
    header: ['Nombre', 'Importe', 'Fecha', 'Región', 'Origen'],
    titleCells: ['Nombre', 'Importe', 'Fecha', 'Región', 'Origen'],
    rows: [
      ['x', 1, null, null, 'a.csv'],
      ['y', 2, null, 'Sur', 'b.csv'],
    ],
  });
  assert.deepEqual(c.msgs, [
    { level: 'warning', key: 'columns_missing', params: { name: 'b.csv', first: 'a.csv', columns: '"Fecha"' } },
    { level: 'warning', key: 'columns_added', params: { name: 'b.csv', first: 'a.csv', columns: '"Región"' } },
  ]);
});

test('stackTables by name: repeated titles match by occurrence', () => {
  const out = stackTables(
    [
      { label: 'a', table: t('a', ['Total', 'Total'], [[1, 2]]) },
      { label: 'b', table: t('b', ['total', 'x', 'TOTAL'], [[3, 'x', 4]]) },
    ],
    { name: 'm', hasHeader: true, matchByName: true, labelColumn: null },
  );
  assert.deepEqual(out.header, ['Total', 'Total', 'x']);
  assert.deepEqual(out.rows, [[1, 2, null], [3, 4, 'x']]);
});

test('stackTables by position: header of the first, warning on differing titles, wider tables widen the result', () => {
  const c = collector();
  const out = stackTables(
    [
      { label: 'a', table: t('a', ['A', 'B'], [[1, 2]]) },
      { label: 'b', table: t('b', ['a', 'X', 'Extra'], [[3, 4, 5]]) },
    ],
    { name: 'm', hasHeader: true, matchByName: false, labelColumn: null, report: c.report },
  );
  assert.deepEqual(out.header, ['A', 'B', 'Extra']);
  assert.deepEqual(out.rows, [[1, 2, null], [3, 4, 5]]);
  assert.deepEqual(c.msgs, [{ level: 'warning', key: 'titles_differ', params: { name: 'b', first: 'a', differences: 'B: B ≠ X; C: — ≠ Extra' } }]);
});

test('stackTables without titles: by position, no header, label column still added', () => {
  const out = stackTables(
    [
      { label: 'a', table: t('a', null, [[1], [2]]) },
      { label: 'b', table: t('b', null, [[3, 4]]) },
    ],
    { name: 'm', hasHeader: false, matchByName: true, labelColumn: 'Origen' },
  );
  assert.deepEqual(out, { name: 'm', header: null, rows: [[1, null, 'a'], [2, null, 'a'], [3, 4, 'b']] });
});

test('stackTables: empty tables are skipped with an info message', () => {
  const c = collector();
  const out = stackTables(
    [
      { label: 'vacía', table: t('v', [], []) },
      { label: 'b', table: t('b', ['x'], [[1]]) },
    ],
    { name: 'm', hasHeader: true, matchByName: true, labelColumn: null, report: c.report },
  );
  assert.deepEqual(out, { name: 'm', header: ['x'], titleCells: ['x'], rows: [[1]] });
  assert.deepEqual(c.msgs, [{ level: 'info', key: 'empty_source', params: { name: 'vacía' } }]);
});

test('stackTables: typed titles (years, dates) are carried from the table that first has them', () => {
  const jan = new Date(Date.UTC(2024, 0, 1));
  const out = stackTables(
    [
      { label: 'a', table: { name: 'a', header: ['Zona', '2024'], titleCells: ['Zona', 2024], rows: [['N', 1]] } },
      { label: 'b', table: { name: 'b', header: ['zona', '2024-01-01'], titleCells: ['zona', jan], rows: [['S', 2]] } },
    ],
    { name: 'm', hasHeader: true, matchByName: true, labelColumn: null },
  );
  assert.deepEqual(out.header, ['Zona', '2024', '2024-01-01']);
  assert.deepEqual(out.titleCells, ['Zona', 2024, jan]);
});
