// A fast reader for the YAML most configuration files are written in: block mappings and sequences,
// one-line flow sequences, plain and one-line quoted scalars, comments. yaml's parser (a lexer, a
// CST, then a document of nodes) was two thirds of loading a large repository; this reads the same
// files about ten times faster. Anything outside the subset, or anything yaml would report (an
// error or a warning), makes it give up on the whole file and the caller reads it with yaml: what
// it returns is exactly what parseYamlDocuments gives through yaml, values and node offsets alike
// (a test compares the two over many generated files).

import type { Json, JsonObject } from '../model/json.js';
import { escapePointerSegment } from '../model/json-pointer.js';

/** One document as yaml-source.ts builds it: the value, and node offsets by pointer. */
export interface SimpleDocument {
  value: JsonObject;
  /** Offset of the document's content. */
  start: number;
  values: Map<string, number>;
  keys: Map<string, number>;
}

const GIVE_UP = Symbol('not simple');
const NOT_SIMPLE_ALPHABET = /[^\n\x20-\x7e]/;

/** Keys the loader refuses, and `<<` (a merge key): left to the full path, which reports them. */
const SPECIAL_KEYS = new Set(['__proto__', 'constructor', 'prototype', '<<']);
/** Plain words the YAML 1.2 core schema reads as null or booleans. */
const NULLS = new Set(['~', 'null', 'Null', 'NULL']);
const BOOLEANS = new Map([
  ['true', true],
  ['True', true],
  ['TRUE', true],
  ['false', false],
  ['False', false],
  ['FALSE', false],
]);
const KEY = /^[A-Za-z_][A-Za-z0-9_-]*:(?= |$)/;
const INTEGER = /^-?[0-9]+$/;
/** A character no YAML 1.2 number (decimal, 0x, 0o, exponent, .inf, .nan) holds. */
const NOT_NUMERIC = /[^0-9a-fA-F.xo+-]/;
/** Characters a plain scalar may start with here (no indicator, sign, dot or quote). */
const PLAIN_START = /[A-Za-z0-9_/$(]/;

interface Line {
  /** Offset of the line's first character. */
  at: number;
  /** Leading spaces. */
  indent: number;
  text: string;
}

/**
 * The documents of `text`, or undefined when it is not simple enough (then yaml must read it).
 * `maxNodes` bounds the nodes of one document as yaml-source.ts does (beyond it: undefined).
 */
export function parseSimpleYaml(text: string, maxNodes: number, positions = true): SimpleDocument[] | undefined {
  // Printable ASCII and line feeds only. YAML's white space is the space and the tab, and its line
  // breaks LF and CR; JavaScript's trim and String#split know others (NBSP, U+2028, U+3000, the
  // BOM, vertical tab, form feed...) that would make this reader see indentation, ends of values or
  // lines where yaml sees text or an error. Outside this alphabet yaml reads the file.
  if (NOT_SIMPLE_ALPHABET.test(text)) return undefined;
  try {
    return new Reader(text, maxNodes, positions).documents();
  } catch (err) {
    if (err === GIVE_UP) return undefined;
    throw err;
  }
}

function giveUp(): never {
  throw GIVE_UP;
}

class Reader {
  private lines: Line[] = [];
  private i = 0;
  private nodes = 0;
  private values = new Map<string, number>();
  private keys = new Map<string, number>();

  constructor(
    private readonly text: string,
    private readonly maxNodes: number,
    /** Whether node offsets are recorded: without, `values` and `keys` stay empty (and no pointer is spelt). */
    private readonly record: boolean,
  ) {}

  documents(): SimpleDocument[] {
    // Content lines of each document; comments and blank lines are dropped.
    const docs: Line[][] = [[]];
    let explicit = false;
    let at = 0;
    for (const raw of this.text.split('\n')) {
      const lineAt = at;
      at += raw.length + 1;
      if (raw === '---') {
        // Before the first `---` only comments: they open no document of their own.
        if (docs.length === 1 && docs[0].length === 0 && !explicit) explicit = true;
        else docs.push([]);
        continue;
      }
      if (raw.startsWith('---') || raw.startsWith('...') || raw.startsWith('%')) giveUp();
      const indent = raw.length - raw.trimStart().length;
      const body = raw.slice(indent);
      if (body === '' || body[0] === '#') continue;
      docs[docs.length - 1].push({ at: lineAt + indent, indent, text: body.trimEnd() });
    }
    return docs.map((lines) => {
      if (lines.length === 0) giveUp();
      this.lines = lines;
      this.i = 0;
      this.nodes = 0;
      this.values = new Map();
      this.keys = new Map();
      const first = lines[0];
      if (first.indent !== 0 || !KEY.test(first.text)) giveUp();
      if (this.record) this.values.set('', first.at);
      this.count();
      const value = this.map(0, '');
      if (this.i < lines.length) giveUp();
      return { value, start: first.at, values: this.values, keys: this.keys };
    });
  }

  private count(): void {
    if (++this.nodes > this.maxNodes) giveUp();
  }

  /** A block mapping whose keys are at column `indent`, from the current line. */
  private map(indent: number, pointer: string, firstColumn?: number): JsonObject {
    const obj: JsonObject = {};
    let first = true;
    while (this.i < this.lines.length) {
      const line = this.lines[this.i];
      // The first pair of a mapping inside a sequence item starts after its `- `.
      const column = first && firstColumn !== undefined ? firstColumn : line.indent;
      const text = first && firstColumn !== undefined ? line.text.slice(firstColumn - line.indent) : line.text;
      if (column < indent) break;
      if (column > indent) giveUp();
      const key = KEY.exec(text)?.[0].slice(0, -1);
      if (key === undefined) {
        if (text.startsWith('- ') || text === '-') break; // a sequence at the parent's column
        giveUp();
      }
      if (SPECIAL_KEYS.has(key) || BOOLEANS.has(key) || NULLS.has(key) || Object.prototype.hasOwnProperty.call(obj, key)) giveUp();
      first = false;
      const keyAt = line.at + (column - line.indent);
      const p = this.record ? `${pointer}/${escapePointerSegment(key)}` : '';
      const rest = text.slice(key.length + 1);
      this.i++;
      this.count();
      if (rest.trim() === '' || rest.trimStart()[0] === '#') {
        // The value is the block below: a mapping indented further, or a sequence at least at this column.
        const next = this.lines[this.i];
        if (next === undefined) giveUp();
        const isSeq = next.text.startsWith('- ') || next.text === '-';
        if (isSeq ? next.indent < indent : next.indent <= indent) giveUp();
        if (this.record) {
          this.keys.set(p, keyAt);
          this.values.set(p, next.at);
        }
        obj[key] = isSeq ? this.seq(next.indent, p) : this.map(next.indent, p);
        continue;
      }
      if (rest[0] !== ' ') giveUp();
      const valueColumn = rest.length - rest.trimStart().length;
      const valueAt = keyAt + key.length + 1 + valueColumn;
      if (this.record) {
        this.keys.set(p, keyAt);
        this.values.set(p, valueAt);
      }
      obj[key] = this.inline(rest.slice(valueColumn), valueAt, p);
      this.endOfValue(indent);
    }
    return obj;
  }

  /** A block sequence whose dashes are at column `indent`. */
  private seq(indent: number, pointer: string): Json[] {
    const arr: Json[] = [];
    while (this.i < this.lines.length) {
      const line = this.lines[this.i];
      if (line.indent < indent) break;
      if (line.indent > indent) giveUp();
      if (!line.text.startsWith('- ')) break;
      const rest = line.text.slice(2);
      const pad = rest.length - rest.trimStart().length;
      const itemColumn = indent + 2 + pad;
      const itemAt = line.at + 2 + pad;
      const p = this.record ? `${pointer}/${arr.length}` : '';
      const body = rest.slice(pad);
      if (body === '' || body[0] === '#' || body.startsWith('- ') || body === '-') giveUp();
      if (this.record) this.values.set(p, itemAt);
      this.count();
      if (KEY.test(body)) {
        // `- key: value`: a mapping whose keys are at the item's column.
        arr.push(this.map(itemColumn, p, itemColumn));
        continue;
      }
      this.i++;
      arr.push(this.inline(body, itemAt, p));
      this.endOfValue(indent);
    }
    return arr;
  }

  /** After a value on its line: the next line may not be indented further (a continuation). */
  private endOfValue(indent: number): void {
    const next = this.lines[this.i];
    if (next !== undefined && next.indent > indent) giveUp();
  }

  /** A value written on its line: a flow sequence, a quoted or a plain scalar (and a comment). */
  private inline(text: string, at: number, pointer: string): Json {
    if (text[0] === '[') return this.flow(text, at, pointer);
    if (text[0] === '"' || text[0] === "'") {
      const [value, end] = quoted(text, 0);
      if (!ends(text, end)) giveUp();
      return value;
    }
    return plainValue(commentless(text));
  }

  /** `[a, "b", c]` on one line, nothing nested. */
  private flow(text: string, at: number, pointer: string): Json[] {
    const arr: Json[] = [];
    let k = 1;
    const skip = () => {
      while (text[k] === ' ') k++;
    };
    skip();
    if (text[k] === ']') return ends(text, k + 1) ? arr : giveUp();
    for (;;) {
      skip();
      if (this.record) this.values.set(`${pointer}/${arr.length}`, at + k);
      this.count();
      let value: Json;
      if (text[k] === '"' || text[k] === "'") {
        const [v, end] = quoted(text, k);
        value = v;
        k = end;
      } else {
        const start = k;
        while (k < text.length && text[k] !== ',' && text[k] !== ']') k++;
        const raw = text.slice(start, k).trimEnd();
        if (raw === '' || /[[\]{}#:]/.test(raw)) giveUp();
        value = plainValue(raw);
      }
      arr.push(value);
      skip();
      if (text[k] === ',') {
        k++;
        skip();
        if (text[k] === ']' || text[k] === ',') giveUp(); // a trailing or empty entry
        continue;
      }
      if (text[k] === ']') return ends(text, k + 1) ? arr : giveUp();
      giveUp();
    }
  }
}

/** Only spaces, or spaces and a comment, after offset `k`. */
function ends(text: string, k: number): boolean {
  const rest = text.slice(k);
  return rest.trim() === '' || /^ +#/.test(rest);
}

/** A plain scalar's text without a trailing comment. */
function commentless(text: string): string {
  const hash = text.indexOf(' #');
  return (hash < 0 ? text : text.slice(0, hash)).trimEnd();
}

/** A quoted scalar on one line, without escapes: its value and the offset after it. */
function quoted(text: string, k: number): [string, number] {
  const q = text[k];
  if (q === '"') {
    const end = text.indexOf('"', k + 1);
    if (end < 0 || text.slice(k + 1, end).includes('\\')) giveUp();
    return [text.slice(k + 1, end), end + 1];
  }
  let value = '';
  let j = k + 1;
  for (;;) {
    const end = text.indexOf("'", j);
    if (end < 0) giveUp();
    value += text.slice(j, end);
    if (text[end + 1] !== "'") return [value, end + 1];
    value += "'";
    j = end + 2;
  }
}

/** A plain scalar resolved as the core schema does, for the forms taken here. */
function plainValue(s: string): Json {
  if (s === '' || !PLAIN_START.test(s[0]) || s.includes(': ') || s.endsWith(':') || NULLS.has(s)) {
    if (!(s[0] === '-' && INTEGER.test(s))) giveUp();
  }
  const bool = BOOLEANS.get(s);
  if (bool !== undefined) return bool;
  if (INTEGER.test(s)) {
    const n = parseInt(s, 10);
    return Number.isSafeInteger(n) ? n : giveUp();
  }
  // Starting with a digit, a string only when no number could be written so.
  if (s[0] >= '0' && s[0] <= '9' && !NOT_NUMERIC.test(s)) giveUp();
  return s;
}
