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

const sameMap = (a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean =>
  a.size === b.size && [...a].every(([k, v], i) => b.get(k) === v && [...b.keys()][i] === k);

/**
 * readsAsYaml without an assertion per text (an exhaustive run makes tens of thousands): the first
 * disagreement, or whether the fast reader took the text. A disagreement is then shown by readsAsYaml.
 */
function agrees(text: string): boolean | string {
  const simple = parseSimpleYaml(text, MAX_NODES);
  const unrecorded = parseSimpleYaml(text, MAX_NODES, false);
  if (!simple || !unrecorded) return simple === unrecorded ? false : 'taken with offsets or without only';
  const diagnostics: Diagnostic[] = [];
  const full = parseWithYaml('f.yaml', text, diagnostics);
  if (diagnostics.length > 0) return 'yaml reports a problem';
  if (simple.length !== full.length) return 'documents';
  const lines = lineStarts(text);
  for (const [i, d] of simple.entries()) {
    const f = full[i];
    if (JSON.stringify(d.value) !== JSON.stringify(f.value)) return 'value';
    if (JSON.stringify(unrecorded[i].value) !== JSON.stringify(f.value) || unrecorded[i].start !== d.start) return 'unrecorded value';
    if (!sameMap(d.values, f.positions.values) || !sameMap(d.keys, f.positions.keys)) return 'offsets';
    const start = lineColumn(lines, d.start);
    if (start.line !== f.start.line || start.column !== f.start.column) return 'start';
  }
  // What the loader gets (offsets worked out when first asked for) is what yaml gives.
  const loaded = parseYamlDocuments('f.yaml', text, []);
  if (loaded.length !== full.length) return 'loaded documents';
  for (const [i, l] of loaded.entries()) {
    if (JSON.stringify(l.value) !== JSON.stringify(full[i].value)) return 'loaded value';
    if (!sameMap(l.positions.values, full[i].positions.values) || !sameMap(l.positions.keys, full[i].positions.keys)) return 'loaded offsets';
  }
  return true;
}

/** Counts what the fast reader took of `texts`, failing with the text at the first disagreement. */
function provenAlike(texts: Iterable<string>): { texts: number; taken: number } {
  let n = 0;
  let taken = 0;
  for (const text of texts) {
    n++;
    const verdict = agrees(text);
    if (typeof verdict === 'string') {
      readsAsYaml(text); // throws with the detail
      throw new Error(`text ${JSON.stringify(text)}: ${verdict}`);
    }
    if (verdict) taken++;
  }
  return { texts: n, taken };
}

describe('the fast reader of simple YAML', () => {
  it('gives what yaml gives for every generated text it takes, and leaves the others', () => {
    const r = rng(20261122);
    let taken = 0;
    let left = 0;
    // Compared as the exhaustive tests below compare (one assertion per disagreement, not per text).
    const texts = (function* () {
      for (let n = 0; n < 6_000; n++) yield fileText(r);
    })();
    ({ taken, texts: left } = provenAlike(texts));
    left -= taken;
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
const ASCII_EDITS = [' ', '  ', '\n', ':', ': ', '-', '- ', '#', ' #', '"', "'", '[', ']', ',', '{', '\\', '&', '*', '!', '|', '---\n', '...\n', 'x'];

/** `text` with 1 to 3 edits, each a character of `alphabet` inserted, replaced or removed. */
function edited(r: ReturnType<typeof rng>, base: string, alphabet: readonly string[]): string {
  let text = base;
  for (let e = 0, n = 1 + r.int(3); e < n; e++) {
    const at = r.int(text.length + 1);
    const ch = r.pick(alphabet);
    const roll = r.next();
    text = roll < 0.2 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + ch + text.slice(roll < 0.6 ? at : at + 1);
  }
  return text;
}

/** Every word of 1 to `max` letters of `alphabet` (a letter may be longer than one character). */
function* words(alphabet: readonly string[], max: number, prefix = ''): Generator<string> {
  for (const letter of alphabet) {
    const word = prefix + letter;
    yield word;
    if (max > 1) yield* words(alphabet, max - 1, word);
  }
}

// The proof of exactness is exhaustive, over small alphabets, so that it is quick (a few hundred
// milliseconds alone; well under 5 s with both cores busy) and says what it covers: the random
// texts above reach further, the enumeration leaves no gap in what it spans.
describe('the fast reader, exhaustively over small alphabets', () => {
  it('leaves every text holding a UTF-16 code unit outside printable ASCII and LF to yaml (all 65,536 tried)', () => {
    const wrong: string[] = [];
    let left = 0;
    for (let unit = 0; unit <= 0xffff; unit++) {
      const ch = String.fromCharCode(unit);
      if (unit === 0x0a || (unit >= 0x20 && unit <= 0x7e)) {
        // Inside the alphabet the text is read on its merits (here, always taken).
        if (!parseSimpleYaml(`a: x${ch === '\n' ? '' : ch}y\n`, MAX_NODES)) wrong.push(`U+${unit.toString(16)} left`);
        continue;
      }
      // Taken or left as a whole: the alphabet is checked before anything is read.
      for (const text of [`a: x${ch}\n`, `a:\n${ch}b: 1\n`, `${ch}: 1\n`]) {
        if (parseSimpleYaml(text, MAX_NODES) === undefined) left++;
        else wrong.push(`U+${unit.toString(16)} taken`);
      }
    }
    expect(wrong).toEqual([]);
    expect(left).toBe((0x10000 - 96) * 3);
    for (const ch of UNICODE_EDITS) expect(parseSimpleYaml(`a: 443${ch}\nb: x\n`, MAX_NODES), JSON.stringify(ch)).toBeUndefined();
  });

  it('reads every scalar of up to four letters as yaml does (three as an item and a flow item), and every indicator first', () => {
    // The letters that decide a scalar's type and end: digits, a sign, a dot, an exponent, quotes,
    // a comment, flow punctuation, a colon and a space. Every other printable character comes first.
    const letters = ['a', '1', '0', '.', '-', 'e', ':', ' ', '#', '"'];
    const indicators = Array.from({ length: 0x7f - 0x21 }, (_, i) => String.fromCharCode(0x21 + i));
    function* texts(): Generator<string> {
      for (const w of words(letters, 4)) yield `k: ${w}\n`;
      for (const w of words([...letters, "'", ',', '[', ']'], 3)) yield* [`s:\n  - ${w}\n`, `f: [${w}]\n`];
      for (const first of indicators) for (const rest of ['', ...words(['a', ' ', '1', ']'], 2)]) yield* [`k: ${first}${rest}\n`, `f: [${first}${rest}]\n`];
    }
    const { texts: n, taken } = provenAlike(texts());
    expect(n).toBe(10 + 10 ** 2 + 10 ** 3 + 10 ** 4 + (14 + 14 ** 2 + 14 ** 3) * 2 + indicators.length * (1 + 4 + 16) * 2);
    // Both ways are exercised.
    expect(taken).toBeGreaterThan(n / 10);
    expect(n - taken).toBeGreaterThan(n / 10);
  });

  it('reads every text of up to four lines of a small vocabulary as yaml does (nesting, items, comments, documents)', () => {
    const vocabulary = ['a: 1', 'a:', '  b: x', '  - x', '  -   z', '    c: y', ' b: 2', '  # c', '', 'a: b # c', '---', "c: 'q'"];
    function* texts(): Generator<string> {
      for (const w of words(vocabulary.map((line) => line + '\n'), 4)) yield* [w, w.slice(0, -1)];
    }
    const { texts: n, taken } = provenAlike(texts());
    expect(n).toBe((12 + 12 ** 2 + 12 ** 3 + 12 ** 4) * 2);
    expect(taken).toBeGreaterThan(1_500);
  });

  it('agrees with yaml on the examples edited at random: it reads alike or leaves the file to yaml', async () => {
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
    compared = provenAlike(
      (function* () {
        for (let n = 0; n < 3_000; n++) yield edited(r, r.pick(examples), ASCII_EDITS);
      })(),
    ).taken;
    expect(compared).toBeGreaterThan(500);
  });
});
