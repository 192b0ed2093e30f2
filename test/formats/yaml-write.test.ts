// The YAML writer against the `yaml` package: every value must read back as itself in a YAML 1.2 reader (the
// `yaml` package) and a YAML 1.1 reader (the `yaml` package in 1.1 mode, and PyYAML), which the `yaml` package's
// own stringify does not achieve: the reason this writer is hand-written (tools/formats/yaml/write.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import YAML from 'yaml';
import { yamlString, yamlValue, yamlWriter } from '../../tools/formats/yaml/write.ts';

const TRICKY = [
  'yes', 'No', 'ON', 'off', 'y', 'n', 'true', 'False', 'null', 'Null', '~', '', ' ', '00123', '0012', '1e3', '0x1F', '0o17', '0b101', '1_000',
  '12:30', '190:20:30', '2024-03-15', '2024-03-15 13:45:00', '2024-3-5', '.inf', '-.INF', '.nan', '+1', '-0', '.5', '1.', '3.14', '-12',
  ' lead', 'trail ', '- dash', '-', '? q', ': c', 'a: b', 'a:', 'a #b', '#x', '&a', '*a', '!tag', '|', '>', "'q'", '"d"', '%p', '@m', '`b',
  '[1]', '{a: 1}', ',', 'línea 1\nlínea 2', 'tab\there', 'cr\rx', 'bell\u0007', 'nel\u0085x', 'ls\u2028x', 'bom\ufeffx', '...', '---', '=', '<<',
  'Muñoz Peña', '+34 600 000 000', '4111111111111111', '=SUM(A1)', 'a - b', "it's", 'plain text', '😀 emoji', 'C:\\ruta', 'x'.repeat(2000),
];

const pyYaml = (text: string): unknown =>
  JSON.parse(execFileSync('/usr/bin/python3', ['-c', 'import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read()), default=str))'], { input: text }).toString('utf8'));

test('yaml: every tricky string reads back as the same string in YAML 1.2, YAML 1.1 and PyYAML', () => {
  const doc = TRICKY.map((s) => `- ${yamlString(s)}\n`).join('');
  assert.deepEqual(YAML.parse(doc, { version: '1.2' }), TRICKY);
  assert.deepEqual(YAML.parse(doc, { version: '1.1' }), TRICKY);
  assert.deepEqual(pyYaml(doc), TRICKY);
  for (const plain of ['Muñoz Peña', 'a - b', "it's", 'plain text', '=SUM(A1)']) assert.equal(yamlString(plain), plain, 'left plain');
  assert.equal(yamlString('yes'), "'yes'");
  assert.equal(yamlString("it's yes: no"), "'it''s yes: no'");
  assert.equal(yamlString('a\nb'), '"a\\nb"');
});

test('yaml: the yaml package stringify leaves YAML 1.1 booleans, numbers and times plain (why the writer is ours)', () => {
  const misread = ['yes', 'on', 'n', '12:30', '1_000', '0o17'].filter((s) => {
    const doc = YAML.stringify([s]);
    return YAML.parse(doc, { version: '1.1' })[0] !== s;
  });
  assert.ok(misread.length >= 4, `the yaml package quotes ${misread.join(', ')}`);
});

test('yaml: values in machine form, keys quoted like values, long keys explicit, empty rows', () => {
  assert.deepEqual([1234.5, 1e21, 1e-7, -0.5, true, null, new Date(Date.UTC(2024, 2, 15)), new Date(Date.UTC(2024, 2, 15, 13, 45, 7)), new Date(Date.UTC(1899, 11, 30, 8, 5))].map(yamlValue), ['1234.5', '1000000000000000000000', '0.0000001', '-0.5', 'true', 'null', '2024-03-15', '2024-03-15T13:45:07', "'08:05:00'"]);
  const long = 'k'.repeat(1100);
  const w = yamlWriter({ name: 'h', header: null, width: 3 }, { keys: ['yes', long, 'a: b'], skipEmpty: true, width: 3 });
  w.write([[1, 'x', null], [null, null, null]]);
  const text = new TextDecoder().decode(w.end().bytes);
  assert.equal(text, `- 'yes': 1\n  ? ${long}\n  : x\n- {}\n`);
  assert.deepEqual(YAML.parse(text), [{ yes: 1, [long]: 'x' }, {}]);
  const empty = yamlWriter({ name: 'h', header: null, width: 1 }, { keys: null, skipEmpty: false, width: 1 });
  assert.equal(new TextDecoder().decode(empty.end().bytes), '[]\n');
});
