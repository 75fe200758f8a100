// YAML text → plain JSON values with the source position of every node, by JSON pointer.
// Hostile input (alias bombs, alias cycles, prototype keys, non-JSON scalars) becomes diagnostics.

import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node } from 'yaml';
import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';
import type { Json, JsonObject } from '../model/json.js';
import { toPointer } from '../model/json-pointer.js';

/** Aliases expanded per document (yaml's maxAliasCount idea): enough for real files, far below a bomb. */
export const MAX_ALIAS_COUNT = 100;
/** Nodes produced per document, aliases expanded: a second guard against amplification. */
export const MAX_NODES = 200_000;
/** Keys that could reach Object.prototype in careless consumers: refused outright. */
export const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export interface NodePosition {
  /** Where the member's key is (members of mappings only). */
  key?: SourcePosition;
  /** Where the value starts. */
  value: SourcePosition;
}

export interface ParsedDocument {
  file: string;
  /** 0-based index of the document in its file. */
  index: number;
  value: Json;
  /** Position of every node by JSON pointer ('' = the document). */
  positions: Map<string, NodePosition>;
  start: SourcePosition;
}

class Abort extends Error {}

const YAML_CODES: Record<string, string> = {
  DUPLICATE_KEY: 'yaml-duplicate-key',
  TAB_AS_INDENT: 'yaml-tab-indent',
};

/** Parses every document of a file. Documents with errors are reported and left out; empty ones warned about. */
export function parseYamlDocuments(file: string, text: string, diagnostics: Diagnostic[]): ParsedDocument[] {
  const lineCounter = new LineCounter();
  const pos = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, column: col };
  };
  const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true });
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
    const converted = toJson(doc, contents, file, pos, diagnostics);
    if (converted) out.push({ file, index, value: converted.value, positions: converted.positions, start });
  });
  return out;
}

/** The key written at `offset` (yaml marks only its first character). */
function keyAt(text: string, offset: number): string {
  const m = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^:\s,{}[\]]+)/.exec(text.slice(offset, offset + 200));
  return m ? m[1] : text.slice(offset, offset + 1);
}

function toJson(
  doc: Document,
  root: Node,
  file: string,
  pos: (offset: number) => SourcePosition,
  diagnostics: Diagnostic[],
): { value: Json; positions: Map<string, NodePosition> } | undefined {
  const positions = new Map<string, NodePosition>();
  const active = new Set<Node>();
  let aliases = 0;
  let nodes = 0;
  let ok = true;
  const at = (node: unknown, fallback: SourcePosition): SourcePosition => {
    const range = (node as Node | null)?.range;
    return range ? pos(range[0]) : fallback;
  };
  const fail = (code: string, message: string, where: SourcePosition, fatal: boolean): void => {
    diagnostics.push({ severity: 'error', code, message, ...where });
    ok = false;
    if (fatal) throw new Abort();
  };

  const walk = (node: unknown, path: (string | number)[], where: SourcePosition): Json => {
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
      return walk(target, path, where);
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
        const p = [...path, i];
        const here = at(item, where);
        positions.set(toPointer(p), { value: here });
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
        const p = [...path, key];
        const valuePos = pair.value ? at(pair.value, keyPos) : keyPos;
        positions.set(toPointer(p), { key: keyPos, value: valuePos });
        Object.defineProperty(obj, key, { value: walk(pair.value, p, valuePos), enumerable: true, writable: true, configurable: true });
      }
      active.delete(node);
      return obj;
    }
    fail('yaml-unsupported-value', 'unsupported YAML node', where, false);
    return null;
  };

  const start = at(root, { file, line: 1, column: 1 });
  positions.set('', { value: start });
  try {
    const value = walk(root, [], start);
    return ok ? { value, positions } : undefined;
  } catch (err) {
    if (err instanceof Abort) return undefined;
    throw err;
  }
}
