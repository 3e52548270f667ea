/**
 * No handwritten server function runs over about a screen and a half: a longer one does several things, and the next
 * reader has to hold them all. Generated code is exempt.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sources } from '../../test/support/layers.js';

const SRC = dirname(fileURLToPath(import.meta.url));
const MAX_LINES = 120;

/** Every function, method and arrow in `file`, with its length in lines. */
export function functionLengths(file: string, text = readFileSync(file, 'utf8')): { name: string; lines: number }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { name: string; lines: number }[] = [];
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const named = (node as { name?: ts.Node }).name ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name : undefined);
      found.push({
        name: `${relative(SRC, file)}:${lineOf(node.getStart()) + 1} ${named?.getText() ?? '(anonymous)'}`,
        lines: lineOf(node.getEnd()) - lineOf(node.getStart()) + 1,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function length', () => {
  it('measures a function from its first line to its last', () => {
    const text = 'function f() {\n  return 1;\n}\nconst g = () => {\n  a();\n  b();\n};\n';
    expect(functionLengths('x.ts', text).map((f) => [f.name.split(' ')[1], f.lines])).toEqual([
      ['f', 3],
      ['g', 4],
    ]);
  });

  it(`no handwritten server function is over ${MAX_LINES} lines`, () => {
    const files = sources(SRC).filter((file) => !file.includes('/generated/'));
    const long = files.flatMap((file) => functionLengths(file)).filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
