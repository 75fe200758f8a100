// Source positions are kept as offsets and turned into line:column on demand: the line and column
// must be exactly those yaml's LineCounter gives (what the loader computed for every node before).

import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node } from 'yaml';
import { describe, expect, it } from 'vitest';
import { positionAt } from '../../src/config/schema-check.js';
import { lineColumn, lineStarts, parseYamlDocuments, positionOf, type PositionIndex } from '../../src/config/yaml-source.js';
import type { Diagnostic, SourcePosition } from '../../src/model/diagnostics.js';
import { toPointer } from '../../src/model/json-pointer.js';

const TEXTS = [
  'a: 1\nb: 2\n',
  'a: |\n  x\n  y\n\n  z\nb: "q\n  r\n  s"\nc: >-\n  p\n\n  q\nd: plain\n  cont\ne: [1,\n  2]\n',
  'f: {x: 1,\r\n y: 2}\r\ng: 1\r\n# c\r\n\r\nh:\r\n  - \'s\n  t\'\r\n  - 2',
  '\uFEFFkey: value # comment\n---\nsecond: [a, b]\n...\n',
  '',
  '\n\n\n',
  'a:\n\tb: 1\n',
  'x: "unclosed\n',
  'k: &anchor\n  v: 1\nref: *anchor\n"a/b~c": 2\n',
];

/** Positions of every node by pointer, computed from yaml's AST and LineCounter (the former way). */
function oracle(text: string): Map<string, { key?: SourcePosition; value: SourcePosition }>[] {
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lc, uniqueKeys: true, prettyErrors: false, strict: true }) as Document[];
  const pos = (offset: number): SourcePosition => {
    const { line, col } = lc.linePos(offset);
    return { file: 'f.yaml', line, column: col };
  };
  return docs
    .filter((d) => d.errors.length === 0 && d.contents !== null)
    .map((doc) => {
      const out = new Map<string, { key?: SourcePosition; value: SourcePosition }>();
      const at = (node: unknown, fallback: SourcePosition) => ((node as Node | null)?.range ? pos((node as Node).range![0]) : fallback);
      const walk = (node: unknown, path: (string | number)[], where: SourcePosition): void => {
        if (isAlias(node)) return walk(node.resolve(doc), path, where);
        if (isSeq(node))
          node.items.forEach((item, i) => {
            const here = at(item, where);
            out.set(toPointer([...path, i]), { value: here });
            walk(item, [...path, i], here);
          });
        if (isMap(node))
          for (const pair of node.items) {
            if (!isPair(pair) || !isScalar(pair.key)) continue;
            const keyPos = at(pair.key, where);
            const valuePos = pair.value ? at(pair.value, keyPos) : keyPos;
            out.set(toPointer([...path, String(pair.key.value)]), { key: keyPos, value: valuePos });
            walk(pair.value, [...path, String(pair.key.value)], valuePos);
          }
      };
      const start = at(doc.contents, { file: 'f.yaml', line: 1, column: 1 });
      out.set('', { value: start });
      walk(doc.contents, [], start);
      return out;
    });
}

describe('line and column from offsets', () => {
  it.each(TEXTS.map((t, i) => [i, t] as const))('text %i: every offset gives what LineCounter gives', (_i, text) => {
    const lc = new LineCounter();
    parseAllDocuments(text, { lineCounter: lc });
    const lines = lineStarts(text);
    expect(lines).toEqual(lc.lineStarts);
    for (let offset = 0; offset <= text.length; offset++) {
      const { line, col } = lc.linePos(offset);
      expect(lineColumn(lines, offset)).toEqual({ line, column: col });
    }
  });

  it.each(TEXTS.map((t, i) => [i, t] as const))('text %i: every node is where the former computation put it', (_i, text) => {
    const diagnostics: Diagnostic[] = [];
    const parsed = parseYamlDocuments('f.yaml', text, diagnostics);
    const expected = oracle(text);
    expect(parsed.length).toBe(expected.length);
    parsed.forEach((doc, d) => {
      expect([...doc.positions.values.keys()]).toEqual([...expected[d].keys()]);
      for (const [pointer, want] of expected[d]) {
        expect(positionOf(doc.positions, pointer, 'value')).toEqual(want.value);
        expect(positionOf(doc.positions, pointer, 'key')).toEqual(want.key ?? want.value);
      }
    });
  });

  it('a document with errors is left out and its errors are where LineCounter says', () => {
    const diagnostics: Diagnostic[] = [];
    expect(parseYamlDocuments('f.yaml', 'ok: 1\n---\nx: "unclosed\n', diagnostics)).toHaveLength(1);
    const lc = new LineCounter();
    const docs = parseAllDocuments('ok: 1\n---\nx: "unclosed\n', { lineCounter: lc, prettyErrors: false, strict: true }) as Document[];
    const { line, col } = lc.linePos(docs[1].errors[0].pos[0]);
    expect(diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([['yaml-syntax', line, col]]);
  });
});

describe('positionAt', () => {
  const index = (): PositionIndex => {
    const [doc] = parseYamlDocuments('f.yaml', 'spec:\n  data:\n    "a/b~c": 1\n  list: [x, y]\n', []);
    return doc.positions;
  };

  it('falls back to the nearest ancestor that has a position', () => {
    expect(positionAt(index(), '/spec/list/1', 'value')).toEqual({ file: 'f.yaml', line: 4, column: 13 });
    expect(positionAt(index(), '/spec/list/7/deeper', 'value')).toEqual({ file: 'f.yaml', line: 4, column: 9 });
    expect(positionAt(index(), '/spec/list/7/deeper', 'key')).toEqual({ file: 'f.yaml', line: 4, column: 3 });
    expect(positionAt(index(), '/nowhere', 'key')).toEqual({ file: 'f.yaml', line: 1, column: 1 });
  });

  it('finds escaped members, and pointers written with a bare ~ as before', () => {
    expect(positionAt(index(), '/spec/data/a~1b~0c', 'key')).toEqual({ file: 'f.yaml', line: 3, column: 5 });
    expect(positionAt(index(), '/spec/data/a~1b~0c', 'value')).toEqual({ file: 'f.yaml', line: 3, column: 14 });
    // `~c` is no escape: decoded and spelt again (as the loader always did), it names the same member.
    expect(positionAt(index(), '/spec/data/a~1b~c', 'value')).toEqual({ file: 'f.yaml', line: 3, column: 14 });
  });
});
