// The fast reader of simple YAML must give exactly what yaml gives: for every text it takes, the
// same documents (values, member order, node offsets) and no problem yaml would have reported.
// Texts come from a generator of block YAML in many spellings, then from random edits of them.

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineColumn, lineStarts, MAX_NODES, parseWithYaml, parseYamlDocuments, type ParsedDocument } from '../../src/config/yaml-source.js';
import { parseSimpleYaml, type SimpleDocument } from '../../src/config/yaml-simple.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import { EXAMPLES } from './helpers.js';

function rng(seed: number) {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  return { next, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)], int: (n: number) => Math.floor(next() * n) };
}

const SAFE_KEYS = ['kind', 'name', 'spec', 'data', 'account', 'channels', 'a', 'b_c', 'd-e', 'X1'];
const SAFE_SCALARS = ['plain', 'two words', 'https://h.example.com/p/${env:TOKEN}', '${env:X}', 'a:b', 'x#y', '(from x)', '/p', '123', '-7', 'true', 'False', '"quoted"', "'it''s'", '[a, b]', '[ ]', '["x", 7]', 'v # c', 'c0ffee-beans'];
const KEYS = ['kind', 'name', 'spec', 'data', 'a', 'b_c', 'd-e', 'X1', 'true', 'null', 'constructor', '__proto__', '<<', 'k k', '"q"', 'x.y', '1'];
const SCALARS = [
  'plain', 'two words', 'https://h.example.com/p/${env:TOKEN}', '${env:X}', 'a:b', 'a: b', 'a #b', 'a#b', 'x:', '(from x)', '/path',
  '_u', 'T000/B000', '100000000007.dkr.ecr.us-east-1.amazonaws.com', '0c4b3b1e-6b1f', '123', '-7', '+7', '007', '1.5', '1e3', '0x1F',
  '.inf', '~', 'null', 'Null', 'true', 'False', 'yes', '"quoted"', '"with \\" escape"', "'single'", "'it''s'", '""', "''", '"a: b"',
  '[a, b]', '[ ]', '[]', '[a, [b]]', '[a,]', '[a: b]', '["x", y]', '{a: 1}', '&anchor x', '*alias', '!tag x', '|', '>', '- x', '-x',
  '@x', '`x`', '%x', '12345678901234567890', 'café', 'a\\b', '[a, b] # c', 'v # comment', 'v   ',
];

/** A random block YAML document (a mapping), written with random but valid spacing choices. */
function documentText(r: ReturnType<typeof rng>): string {
  const out: string[] = [];
  const tricky = r.next() < 0.3;
  const key = () => (tricky && r.next() < 0.2 ? r.pick(KEYS) : r.pick(SAFE_KEYS));
  const scalar = () => (tricky && r.next() < 0.2 ? r.pick(SCALARS) : r.pick(SAFE_SCALARS));
  const value = (indent: number, depth: number, lead: string): void => {
    const roll = r.next();
    if (depth > 3 || roll < 0.55) {
      out.push(`${lead} ${scalar()}${r.next() < 0.1 ? '  # note' : ''}`);
    } else if (roll < 0.8) {
      out.push(lead + (r.next() < 0.1 ? ' # c' : ''));
      map(indent + r.pick([1, 2, 2, 4]), depth + 1);
    } else {
      out.push(lead);
      const at = r.next() < 0.3 ? indent : indent + 2;
      for (let i = 0, n = 1 + r.int(3); i < n; i++) {
        const pad = ' '.repeat(at);
        if (r.next() < 0.3) {
          const col = at + 2;
          out.push(`${pad}- ${key()}: ${scalar()}`);
          if (r.next() < 0.5) out.push(`${' '.repeat(col)}${key()}: ${scalar()}`);
        } else out.push(`${pad}-${r.next() < 0.1 ? '   ' : ' '}${scalar()}`);
        if (r.next() < 0.05) out.push('');
        if (r.next() < 0.05) out.push(`${' '.repeat(r.int(6))}# comment`);
      }
    }
  };
  const map = (indent: number, depth: number): void => {
    for (let i = 0, n = 1 + r.int(4); i < n; i++) value(indent, depth, `${' '.repeat(indent)}${key()}:`);
  };
  map(0, 0);
  return out.join('\n');
}

function fileText(r: ReturnType<typeof rng>): string {
  const docs = Array.from({ length: 1 + r.int(3) }, () => documentText(r));
  let text = (r.next() < 0.2 ? '# head\n---\n' : '') + docs.join(r.next() < 0.9 ? '\n---\n' : '\n--- # x\n') + (r.next() < 0.7 ? '\n' : '');
  // Random edits: characters that matter to YAML, inserted, replaced or removed.
  for (let e = 0, n = r.next() < 0.7 ? 0 : 1 + r.int(3); e < n; e++) {
    const at = r.int(text.length + 1);
    const ch = r.pick([' ', '  ', '\n', ':', ': ', '-', '- ', '#', ' #', '"', "'", '[', ']', ',', '{', '\t', '\r', '\\', '&', '*', '!', '|', '---\n', '...\n', 'x']);
    text = r.next() < 0.3 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + ch + text.slice(r.next() < 0.5 ? at : at + 1);
  }
  return text;
}

function same(text: string, simple: SimpleDocument[], full: ParsedDocument[]): void {
  const lines = lineStarts(text);
  expect(simple.length).toBe(full.length);
  simple.forEach((d, i) => {
    expect(JSON.stringify(d.value)).toBe(JSON.stringify(full[i].value));
    expect(d.value).toEqual(full[i].value);
    expect([...d.values]).toEqual([...full[i].positions.values]);
    expect([...d.keys]).toEqual([...full[i].positions.keys]);
    expect({ file: full[i].file, ...lineColumn(lines, d.start) }).toEqual(full[i].start);
  });
}

/** Whether the fast reader takes `text`; when it does, its result must be exactly yaml's, with no problem yaml reports. */
function readsAsYaml(text: string): boolean {
  const simple = parseSimpleYaml(text, MAX_NODES);
  // The loader's first reading records no offsets: it takes the same files, with the same values.
  const unrecorded = parseSimpleYaml(text, MAX_NODES, false);
  if (!simple || !unrecorded) {
    if (simple !== unrecorded) throw new Error(`text ${JSON.stringify(text)}: read with offsets ${simple ? 'taken' : 'left'}, without ${unrecorded ? 'taken' : 'left'}`);
    return false;
  }
  const diagnostics: Diagnostic[] = [];
  const full = parseWithYaml('f.yaml', text, diagnostics);
  try {
    expect(diagnostics).toEqual([]);
    same(text, simple, full);
    expect(unrecorded.map((d) => [d.value, d.start, d.values.size, d.keys.size])).toEqual(simple.map((d) => [d.value, d.start, 0, 0]));
    // What the loader gets (offsets worked out when first asked for) is what yaml gives.
    same(text, simple, parseYamlDocuments('f.yaml', text, []));
  } catch (err) {
    throw new Error(`text ${JSON.stringify(text)}: ${(err as Error).message}`);
  }
  return true;
}

describe('the fast reader of simple YAML', () => {
  it('gives what yaml gives for every generated text it takes, and leaves the others', () => {
    const r = rng(20261122);
    let taken = 0;
    let left = 0;
    for (let n = 0; n < 6_000; n++) {
      const text = fileText(r);
      if (readsAsYaml(text)) taken++;
      else left++;
    }
    // Both ways are exercised.
    expect(taken).toBeGreaterThan(1_000);
    expect(left).toBeGreaterThan(1_000);
  });

  it('takes the examples it can, with the same result', async () => {
    const files: string[] = [];
    const walk = async (dir: string) => {
      for (const e of await readdir(dir, { withFileTypes: true })) {
        if (e.isDirectory()) await walk(path.join(dir, e.name));
        else if (/\.ya?ml$/.test(e.name)) files.push(path.join(dir, e.name));
      }
    };
    await walk(EXAMPLES);
    let taken = 0;
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      const simple = parseSimpleYaml(text, MAX_NODES);
      if (!simple) continue;
      taken++;
      const diagnostics: Diagnostic[] = [];
      same(text, simple, parseWithYaml(file, text, diagnostics));
      expect(diagnostics).toEqual([]);
    }
    expect(taken).toBeGreaterThan(files.length / 2);
  });

  it('leaves to yaml what yaml reports or reads otherwise', () => {
    for (const text of [
      '', '# only\n', 'a: 1\n---\n', 'a: 1\na: 2\n', 'a: [1, 2\n', 'a: "x\n', 'a:\n\tb: 1\n', 'a: &x 1\nb: *x\n', 'a: !t 1\n', 'a: |\n  x\n',
      'a: 1.5\n', 'a: null\n', 'a:\nb: 1\n', 'a: x\n  y\n', '- a\n', 'true: 1\n', '__proto__: 1\n', '<<: 1\n', 'a: {b: 1}\n', 'a: 1\r\n',
      'a: "\\n"\n', 'k: x: y\n', '  a: 1\n', 'a:\n  b: 1\n c: 2\n', 'a: b # c\n  d: e\n', '%YAML 1.2\n---\na: 1\n', 'a: 1\n...\n',
    ]) {
      expect(parseSimpleYaml(text, MAX_NODES), JSON.stringify(text)).toBeUndefined();
    }
  });

  it('counts nodes as the full reader does: a document above the limit is left to it', () => {
    const text = `a: [${Array.from({ length: 20 }, (_, i) => `x${i}`).join(', ')}]\n`;
    expect(parseSimpleYaml(text, 22)).toBeDefined();
    expect(parseSimpleYaml(text, 21)).toBeUndefined();
  });
});

// Characters where JavaScript and YAML disagree about white space and line breaks, and others a
// reader may mishandle: NBSP, NEL, LS, PS, vertical tab, form feed, ideographic space, BOM, lone
// surrogates, an emoji (a surrogate pair), CRLF, tab, NUL, DEL, a C1 control, a zero-width space.
const UNICODE_EDITS = ['\u00a0', '\u0085', '\u2028', '\u2029', '\v', '\f', '\u3000', '\ufeff', '\ud800', '\udc00', '\u{1f600}', '\r\n', '\t', '\0', '\x7f', '\x9b', '\u200b', 'é'];
const ASCII_EDITS = [' ', '  ', '\n', ':', ': ', '-', '- ', '#', ' #', '"', "'", '[', ']', ',', 'x'];

/** `text` with 1 to 3 edits, each a character of either alphabet inserted, replaced or removed. */
function edited(r: ReturnType<typeof rng>, base: string): string {
  let text = base;
  for (let e = 0, n = 1 + r.int(3); e < n; e++) {
    const at = r.int(text.length + 1);
    const ch = r.next() < 0.85 ? r.pick(UNICODE_EDITS) : r.pick(ASCII_EDITS);
    const roll = r.next();
    text = roll < 0.2 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + ch + text.slice(roll < 0.6 ? at : at + 1);
  }
  return text;
}

describe('the fast reader over a Unicode alphabet', () => {
  it('agrees with yaml on 200,000 edited files (generated and the examples): it reads alike or leaves the file to yaml', async () => {
    const examples: string[] = [];
    const walk = async (dir: string) => {
      for (const e of await readdir(dir, { withFileTypes: true })) {
        if (e.isDirectory()) await walk(path.join(dir, e.name));
        else if (/\.ya?ml$/.test(e.name)) examples.push(await readFile(path.join(dir, e.name), 'utf8'));
      }
    };
    await walk(EXAMPLES);
    const r = rng(20261126);
    let compared = 0;
    let unicodeLeft = 0;
    for (let n = 0; n < 200_000; n++) {
      const text = edited(r, n % 2 === 0 ? r.pick(examples) : fileText(r));
      if (readsAsYaml(text)) compared++;
      else if (/[^\n\x20-\x7e]/.test(text)) unicodeLeft++;
    }
    // Both ways are exercised: files the fast reader takes (and matches), and Unicode it leaves.
    expect(compared).toBeGreaterThan(5_000);
    expect(unicodeLeft).toBeGreaterThan(50_000);
  });

  it('leaves every text with a character outside printable ASCII to yaml', () => {
    for (const ch of UNICODE_EDITS) expect(parseSimpleYaml(`a: 443${ch}\nb: x\n`, MAX_NODES), JSON.stringify(ch)).toBeUndefined();
    for (const ch of UNICODE_EDITS) expect(parseSimpleYaml(`a:\n${ch}b: 1\n`, MAX_NODES), JSON.stringify(ch)).toBeUndefined();
  });
});
