// Reads the Containerfile as a builder would: instructions with continuation lines joined, grouped in stages,
// and the final stage's environment.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

export interface Instruction {
  op: string;
  args: string;
  line: number;
}

export const CONTAINERFILE = new URL('../../Containerfile', import.meta.url).pathname;

/** Containerfile instructions, continuation lines joined, comments dropped. */
export function instructions(text: string = readFileSync(CONTAINERFILE, 'utf8')): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  let start = 0;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) return;
    if (!pending) start = i + 1;
    pending += line.endsWith('\\') ? `${line.slice(0, -1)} ` : line;
    if (line.endsWith('\\')) return;
    const m = /^(\w+)\s+(.*)$/s.exec(pending);
    assert.ok(m, `Containerfile line ${start}: not an instruction`);
    out.push({ op: m[1].toUpperCase(), args: m[2].trim(), line: start });
    pending = '';
  });
  return out;
}

/** The instructions of each stage, FROM first. */
export function stagesOf(all: Instruction[]): Instruction[][] {
  const stages: Instruction[][] = [];
  for (const ins of all) {
    if (ins.op === 'FROM') stages.push([]);
    stages.at(-1)?.push(ins);
  }
  return stages;
}

/** `A=1 B="x y"` → { A: '1', B: 'x y' }. */
export function envPairs(args: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of args.matchAll(/(\w+)=("([^"]*)"|\S+)/g)) out[m[1]] = m[3] ?? m[2];
  return out;
}

/** The environment a stage's ENV instructions set. */
export const envOf = (stage: Instruction[]): Record<string, string> => Object.assign({}, ...stage.filter((i) => i.op === 'ENV').map((i) => envPairs(i.args)));
