// YAML text → plain JSON values with the source offset of every node, by JSON pointer; offsets
// become line:column only when a diagnostic or a resource asks for one (positionOf).
// Hostile input (alias bombs, alias cycles, prototype keys, non-JSON scalars) becomes diagnostics.

import type { Document, Node } from 'yaml';
import type { DiagnosticCode } from '../model/diagnostic-codes.js';
import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';
import type { Json, JsonObject } from '../model/json.js';
import { escapePointerSegment } from '../model/json-pointer.js';
import { yamlLib } from '../model/yaml-lib.js';
import { parseSimpleYaml, type SimpleDocument } from './yaml-simple.js';

/** Aliases expanded per document (yaml's maxAliasCount idea): enough for real files, far below a bomb. */
export const MAX_ALIAS_COUNT = 100;
/** Nodes produced per document, aliases expanded: a second guard against amplification. */
export const MAX_NODES = 200_000;
/** Collections nested in one another at most: far beyond any configuration, far below the parsers' stacks. */
export const MAX_DEPTH = 100;
/** Keys that could reach Object.prototype in careless consumers: refused outright. */
export const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Where the nodes of one document are, by JSON pointer, as UTF-16 offsets into the file's text.
 * Plain data (it crosses worker threads as it is); `positionOf` turns an offset into line:column.
 */
export interface PositionIndex {
  file: string;
  /** Offsets at which the file's lines start (shared by the documents of one file). */
  lines: readonly number[];
  /** Pointer → offset of the node's value ('' = the document). */
  values: Map<string, number>;
  /** Pointer → offset of the member's key (members of mappings only). */
  keys: Map<string, number>;
}

export interface ParsedDocument {
  file: string;
  /** 0-based index of the document in its file. */
  index: number;
  value: Json;
  /** Position of every node by JSON pointer. */
  positions: PositionIndex;
  start: SourcePosition;
}

/** Offsets at which the lines of `text` start: 0, then after every `\n` (as yaml's LineCounter counts). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Line and column (1-based, UTF-16 units) of an offset, exactly as yaml's LineCounter.linePos gives them. */
export function lineColumn(lines: readonly number[], offset: number): { line: number; column: number } {
  let low = 0;
  let high = lines.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (offset < lines[mid]) high = mid;
    else low = mid + 1;
  }
  if (lines[low - 1] === offset) return { line: low, column: 1 };
  if (low === 0) return { line: 0, column: offset };
  return { line: low, column: offset - lines[low - 1] + 1 };
}

/** Source position of the node at exactly `pointer`: its key (members, when `prefer` is key) or its value. */
export function positionOf(index: PositionIndex, pointer: string, prefer: 'key' | 'value' = 'value'): SourcePosition | undefined {
  const value = index.values.get(pointer);
  if (value === undefined) return undefined;
  const offset = prefer === 'key' ? (index.keys.get(pointer) ?? value) : value;
  return { file: index.file, ...lineColumn(index.lines, offset) };
}

class Abort extends Error {}

const YAML_CODES: Record<string, DiagnosticCode> = {
  DUPLICATE_KEY: 'yaml-duplicate-key',
  TAB_AS_INDENT: 'yaml-tab-indent',
};

/** Parses every document of a file. Documents with errors are reported and left out; empty ones warned about. */
export function parseYamlDocuments(file: string, text: string, diagnostics: Diagnostic[]): ParsedDocument[] {
  const lines = lineStarts(text);
  const pos = (offset: number): SourcePosition => ({ file, ...lineColumn(lines, offset) });
  // Most files are simple YAML: read fast, with the same result; any other file goes through yaml.
  // Node offsets are not recorded on this first reading: most documents never need one, and
  // recording them was a tenth of validate's allocations. The first position asked of a file's
  // documents reads the file again with them, by the same reader: the same offsets as recorded.
  const simple = parseSimpleYaml(text, MAX_NODES, false);
  if (simple) {
    let offsets: SimpleDocument[] | undefined;
    const offsetsOf = (index: number): SimpleDocument => (offsets ??= parseSimpleYaml(text, MAX_NODES)!)[index];
    return simple.map((d, index) => ({ file, index, value: d.value, positions: lazyPositions(file, lines, () => offsetsOf(index)), start: pos(d.start) }));
  }
  return parseWithYaml(file, text, diagnostics, lines);
}

/**
 * A PositionIndex whose maps are made on first use. Its getters are own and enumerable, so that the
 * structured clone taking it to another thread (parallel-load.ts) copies the maps themselves.
 */
function lazyPositions(file: string, lines: readonly number[], offsets: () => SimpleDocument): PositionIndex {
  return {
    file,
    lines,
    get values() {
      return offsets().values;
    },
    get keys() {
      return offsets().keys;
    },
  };
}

/** parseYamlDocuments through yaml, whatever the text (exported for the tests comparing both ways). */
export function parseWithYaml(file: string, text: string, diagnostics: Diagnostic[], lines = lineStarts(text)): ParsedDocument[] {
  const pos = (offset: number): SourcePosition => ({ file, ...lineColumn(lines, offset) });
  const { isScalar, parseAllDocuments } = yamlLib();
  // yaml's parser recurses per level: a text nested too deep is refused before it is parsed.
  const deep = tooDeepAt(text, MAX_DEPTH);
  if (deep !== undefined) {
    diagnostics.push(tooDeep(pos(deep)));
    return [];
  }
  let docs;
  try {
    docs = parseAllDocuments(text, { uniqueKeys: true, prettyErrors: false, strict: true });
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    diagnostics.push(tooDeep(pos(0)));
    return [];
  }
  const list: Document[] = Array.isArray(docs) ? (docs as Document[]) : [docs as unknown as Document];
  if (list.length === 0) {
    diagnostics.push({ severity: 'warning', code: 'empty-document', message: 'file holds no document; skipped', file, line: 1, column: 1 });
    return [];
  }
  const out: ParsedDocument[] = [];
  list.forEach((doc, index) => {
    let failed = false;
    for (const err of doc.errors) {
      failed = true;
      const at = pos(err.pos[0]);
      if (/call stack/i.test(err.message)) {
        diagnostics.push(tooDeep(at));
        continue;
      }
      const code = YAML_CODES[err.code] ?? 'yaml-syntax';
      // yaml quotes the offending token; a token longer than punctuation may be a value (a secret
      // written where it should not be), so it is left out: the position says where it is.
      const detail = err.message
        .split('\n')[0]
        .replace(/ at line \d+, column \d+.*$/, '')
        .replace(/:? ?"[^"]*"$/, (quoted) => (quoted.length <= 6 ? quoted : ''));
      const message =
        code === 'yaml-duplicate-key'
          ? `duplicate key \`${keyAt(text, err.pos[0])}\` in the same mapping`
          : code === 'yaml-tab-indent'
            ? 'tab used for indentation; YAML indents with spaces only'
            : `YAML syntax error: ${detail}`;
      diagnostics.push({ severity: 'error', code, message, ...at });
    }
    for (const w of doc.warnings) {
      const at = pos(w.pos[0]);
      const code = w.code === 'TAG_RESOLVE_FAILED' ? 'yaml-unknown-tag' : 'yaml-warning';
      diagnostics.push({ severity: 'warning', code, message: w.message.split('\n')[0], ...at });
    }
    if (failed) return;
    const contents = doc.contents as Node | null;
    const start = contents?.range ? pos(contents.range[0]) : pos(0);
    if (contents === null || (isScalar(contents) && contents.value === null && !contents.tag)) {
      diagnostics.push({ severity: 'warning', code: 'empty-document', message: `document ${index + 1} is empty; skipped`, ...start });
      return;
    }
    const positions: PositionIndex = { file, lines, values: new Map(), keys: new Map() };
    const value = toJson(doc, contents, positions, pos, diagnostics);
    if (value !== undefined) out.push({ file, index, value, positions, start });
  });
  return out;
}

function tooDeep(at: SourcePosition): Diagnostic {
  return {
    severity: 'error',
    code: 'yaml-too-deep',
    message: `collections nested more than ${MAX_DEPTH} deep; refusing the file`,
    ...at,
    hint: 'a configuration nests a few levels: is this file generated, or damaged?',
  };
}

/**
 * Offset at which flow collections (`[`, `{`) or block sequence entries on one line (`- - -`) first
 * nest deeper than `max`, outside quotes and comments; undefined when they never do. Block nesting by
 * indentation is bounded by the file's size and the node limit.
 */
export function tooDeepAt(text: string, max: number): number | undefined {
  // Most texts cannot nest that deep at all: fewer openings than the limit.
  if ((text.match(/[[{-]/g)?.length ?? 0) <= max) return undefined;
  let depth = 0;
  let quote: string | undefined;
  let lineDashes = 0;
  let lineStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== undefined) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '\n') {
      lineDashes = 0;
      lineStart = true;
      continue;
    }
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1]))) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end - 1;
      continue;
    }
    if ((c === '"' || c === "'") && (i === 0 || /[\s,[{:]/.test(text[i - 1]))) quote = c;
    else if (c === '[' || c === '{') {
      if (++depth > max) return i;
    } else if ((c === ']' || c === '}') && depth > 0) depth--;
    else if (c === '-' && lineStart && (text[i + 1] === ' ' || text[i + 1] === '\n' || i + 1 === text.length)) {
      if (++lineDashes > max) return i;
      continue;
    }
    if (c !== ' ' && c !== '-' && c !== '?' && c !== ':') lineStart = false;
  }
  return undefined;
}

/** The key written at `offset` (yaml marks only its first character). */
function keyAt(text: string, offset: number): string {
  const m = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^:\s,{}[\]]+)/.exec(text.slice(offset, offset + 200));
  return m ? m[1] : text.slice(offset, offset + 1);
}

/** The document as JSON, its node offsets recorded in `positions`; undefined when it has errors. */
function toJson(
  doc: Document,
  root: Node,
  positions: PositionIndex,
  pos: (offset: number) => SourcePosition,
  diagnostics: Diagnostic[],
): Json | undefined {
  const { isAlias, isMap, isPair, isScalar, isSeq } = yamlLib();
  const { values, keys } = positions;
  const active = new Set<Node>();
  let aliases = 0;
  let nodes = 0;
  let ok = true;
  const at = (node: unknown, fallback: number): number => {
    const range = (node as Node | null)?.range;
    return range ? range[0] : fallback;
  };
  const fail = (code: DiagnosticCode, message: string, where: number, fatal: boolean): void => {
    diagnostics.push({ severity: 'error', code, message, ...pos(where) });
    ok = false;
    if (fatal) throw new Abort();
  };

  let depth = 0;
  const walk = (node: unknown, pointer: string, where: number): Json => {
    if (++depth > MAX_DEPTH) fail('yaml-too-deep', `collections nested more than ${MAX_DEPTH} deep; refusing the document`, where, true);
    try {
      return walkNode(node, pointer, where);
    } finally {
      depth--;
    }
  };
  const walkNode = (node: unknown, pointer: string, where: number): Json => {
    if (++nodes > MAX_NODES) fail('yaml-alias-bomb', `document expands to more than ${MAX_NODES} nodes; refusing it`, where, true);
    if (isAlias(node)) {
      if (++aliases > MAX_ALIAS_COUNT)
        fail('yaml-alias-bomb', `more than ${MAX_ALIAS_COUNT} aliases expanded in one document (an alias bomb?); refusing it`, where, true);
      const target = node.resolve(doc) as Node | undefined;
      if (!target) {
        fail('yaml-alias-unknown', `alias *${node.source} names no anchor before it`, where, false);
        return null;
      }
      if (active.has(target)) {
        fail('yaml-alias-cycle', `alias *${node.source} refers to a node that contains it`, where, false);
        return null;
      }
      // Positions inside an alias are those of the anchored node; the alias itself marks its pointer.
      return walk(target, pointer, where);
    }
    if (node === null || node === undefined) return null;
    if (isScalar(node)) {
      const v = node.value;
      if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
      if (typeof v === 'number') {
        if (Number.isFinite(v)) return v;
        fail('yaml-unsupported-value', `${String(v)} is not a JSON number`, where, false);
        return null;
      }
      fail('yaml-unsupported-value', `value of type ${typeof v} is not supported (strings, numbers, booleans, null, lists and mappings are)`, where, false);
      return null;
    }
    if (isSeq(node)) {
      active.add(node);
      const arr = node.items.map((item, i) => {
        const p = `${pointer}/${i}`;
        const here = at(item, where);
        values.set(p, here);
        return walk(item, p, here);
      });
      active.delete(node);
      return arr;
    }
    if (isMap(node)) {
      active.add(node);
      const obj: JsonObject = {};
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const keyNode = pair.key as Node | null;
        const keyPos = at(keyNode, where);
        if (!isScalar(keyNode) || keyNode.value === null || typeof keyNode.value === 'object') {
          fail('yaml-complex-key', 'mapping keys must be plain strings', keyPos, false);
          continue;
        }
        const key = String(keyNode.value);
        if (FORBIDDEN_KEYS.has(key)) {
          fail('forbidden-key', `key \`${key}\` is not allowed`, keyPos, false);
          continue;
        }
        if (key === '<<' && isAlias(pair.value)) {
          fail('yaml-merge-key', 'merge keys (`<<: *anchor`) are not supported; write the members out', keyPos, false);
          continue;
        }
        // `1:` and `"1":` are different YAML keys but the same JSON member.
        if (Object.prototype.hasOwnProperty.call(obj, key)) {
          fail('yaml-duplicate-key', `duplicate key \`${key}\` in the same mapping`, keyPos, false);
          continue;
        }
        const p = `${pointer}/${escapePointerSegment(key)}`;
        const valuePos = pair.value ? at(pair.value, keyPos) : keyPos;
        keys.set(p, keyPos);
        values.set(p, valuePos);
        // A plain assignment is safe: the keys that could reach the prototype are refused above.
        obj[key] = walk(pair.value, p, valuePos);
      }
      active.delete(node);
      return obj;
    }
    fail('yaml-unsupported-value', 'unsupported YAML node', where, false);
    return null;
  };

  const start = at(root, 0);
  values.set('', start);
  try {
    const value = walk(root, '', start);
    return ok ? value : undefined;
  } catch (err) {
    if (err instanceof Abort) return undefined;
    throw err;
  }
}
