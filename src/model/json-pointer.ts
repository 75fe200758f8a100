// RFC 6901 pointers over plain JSON values. Pure; never mutates its input.

import type { Json, JsonObject } from './json.js';

/**
 * The pointers a run uses are few (the kinds' pointers, a document's members) and parsed again and
 * again: each is split once and its frozen segments shared. Bounded: emptied when full.
 */
const PARSED_MAX = 4096;
const parsed = new Map<string, readonly string[]>();

export function parsePointer(pointer: string): readonly string[] {
  let segs = parsed.get(pointer);
  if (segs !== undefined) return segs;
  if (pointer === '') segs = [];
  else if (!pointer.startsWith('/')) throw new Error(`invalid JSON pointer: ${pointer}`);
  else {
    const split = pointer.slice(1).split('/');
    segs = pointer.includes('~') ? split.map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')) : split;
  }
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(pointer, Object.freeze(segs));
  return segs;
}

export function toPointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => '/' + escapePointerSegment(String(s))).join('');
}

/** One segment as a pointer spells it: `~` → `~0`, `/` → `~1`. */
export function escapePointerSegment(segment: string): string {
  return segment.includes('~') || segment.includes('/') ? segment.replace(/~/g, '~0').replace(/\//g, '~1') : segment;
}

export function getAt(value: Json | undefined, pointer: string): Json | undefined {
  return getAtPath(value, parsePointer(pointer));
}

/** getAt with the pointer already parsed (parsePointer), for a pointer used many times. */
export function getAtPath(value: Json | undefined, segments: readonly string[]): Json | undefined {
  let cur: Json | undefined = value;
  for (const seg of segments) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = Array.isArray(cur) ? cur[Number(seg)] : Object.prototype.hasOwnProperty.call(cur, seg) ? cur[seg] : undefined;
  }
  return cur;
}

export function hasAt(value: Json | undefined, pointer: string): boolean {
  return getAt(value, pointer) !== undefined;
}

/** Copy of `root` with the value at `pointer` replaced (intermediate objects created as needed). */
export function setAt<T extends JsonObject>(root: T, pointer: string, next: Json): T {
  return setAtPath(root, parsePointer(pointer), next);
}

/** setAt with the pointer already parsed (parsePointer), for a pointer used many times. */
export function setAtPath<T extends JsonObject>(root: T, segs: readonly string[], next: Json): T {
  if (segs.length === 0) throw new Error('cannot replace the root');
  const walk = (node: Json | undefined, i: number): Json => {
    const seg = segs[i];
    const last = i === segs.length - 1;
    if (Array.isArray(node)) {
      const copy = [...node];
      copy[Number(seg)] = last ? next : walk(copy[Number(seg)], i + 1);
      return copy;
    }
    const obj: JsonObject = node !== null && typeof node === 'object' ? { ...node } : {};
    obj[seg] = last ? next : walk(obj[seg], i + 1);
    return obj;
  };
  return walk(root, 0) as T;
}

/** Copy of `root` without the member at `pointer`; unchanged when absent. */
export function removeAt<T extends JsonObject>(root: T, pointer: string): T {
  if (!hasAt(root, pointer)) return root;
  const segs = parsePointer(pointer);
  const walk = (node: Json, i: number): Json => {
    const seg = segs[i];
    const last = i === segs.length - 1;
    if (Array.isArray(node)) {
      const copy = [...node];
      if (last) copy.splice(Number(seg), 1);
      else copy[Number(seg)] = walk(copy[Number(seg)], i + 1);
      return copy;
    }
    const obj = { ...(node as JsonObject) };
    if (last) delete obj[seg];
    else obj[seg] = walk(obj[seg], i + 1);
    return obj;
  };
  return walk(root, 0) as T;
}

/** True when `pointer` is `prefix` or lies below it. */
export function isWithin(pointer: string, prefix: string): boolean {
  return pointer === prefix || pointer.startsWith(prefix + '/');
}
