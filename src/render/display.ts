// What a person sees of a change's specs: secrets masked (again, defensively), env markers shown as
// the template they came from (a variable name, never its value), and a line diff of stable YAML.

import { structuredPatch } from 'diff';
import { stringify } from 'yaml';
import { isEnvMarker, maskAt, ENV_MARKER, MASK } from '../model/env-markers.js';
import { type Change, type DiffOp } from '../model/plan.js';
import type { Json, JsonObject } from '../model/json.js';
import { getAt, isWithin, setAt } from '../model/json-pointer.js';

/** Pointers whose values never appear: sensitive and write-only ones. */
export function secretPointers(change: Pick<Change, 'sensitive' | 'writeOnly'>): string[] {
  return [...new Set([...change.sensitive, ...change.writeOnly])];
}

/** The spec with every secret pointer masked; env markers are kept (they hold no value). */
export function maskSpec(spec: JsonObject | undefined, pointers: readonly string[]): JsonObject | undefined {
  return spec === undefined ? undefined : maskAt(spec, pointers);
}

/** A diff operation with any secret it could carry masked, including secrets below a replaced parent. */
export function maskOp(op: DiffOp, pointers: readonly string[]): DiffOp {
  if (op.value === undefined) return op;
  let value = op.value as Json;
  for (const p of pointers) {
    if (isWithin(op.path, p)) {
      if (!isEnvMarker(value)) value = MASK;
    } else if (isWithin(p, op.path)) {
      value = maskAt({ v: value }, ['/v' + p.slice(op.path.length)]).v;
    }
  }
  return { ...op, value };
}

/** `{"$env": "${env:X}"}` → `(from ${env:X})`, everywhere in a value. */
export function showEnvMarkers(value: Json): Json {
  if (isEnvMarker(value)) return `(from ${value[ENV_MARKER]})`;
  if (Array.isArray(value)) return value.map(showEnvMarkers);
  if (value !== null && typeof value === 'object') {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) out[k] = showEnvMarkers(v);
    return out;
  }
  return value;
}

function touched(pointer: string, ops: readonly DiffOp[]): boolean {
  return ops.some((op) => isWithin(op.path, pointer) || isWithin(pointer, op.path));
}

/**
 * Masked before/after for display. A masked live value and an env marker always look different, so
 * where the plan found no difference (no diff operation touches the pointer) or the value is
 * write-only and not being rotated on an update, the before side shows what the after side shows.
 */
export function displayPair(change: Change): { before?: Json; after?: Json } {
  const pointers = secretPointers(change);
  let before = maskSpec(change.before, pointers);
  const after = maskSpec(change.after, pointers);
  if (before !== undefined && after !== undefined) {
    const ops = change.diff ?? [];
    for (const p of pointers) {
      const writeOnly = change.writeOnly.includes(p);
      if (writeOnly && change.rotate) continue;
      const writeOnlyKept = writeOnly && change.action === 'update';
      if (!writeOnlyKept && touched(p, ops)) continue;
      const a = getAt(after, p);
      // Only where the live side has the member's parent: never invent structure it lacks.
      if (a !== undefined && getAt(before, p.slice(0, p.lastIndexOf('/'))) !== undefined) before = setAt(before, p, a);
    }
  }
  // The service never returns these: the live side is taken to hold what the file says (not compared).
  if (before !== undefined && after !== undefined && change.action === 'update') {
    for (const p of change.unreturned ?? []) {
      const a = getAt(after, p);
      if (a !== undefined && getAt(before, p) === undefined && !(change.diff ?? []).some((op) => isWithin(op.path, p))) before = setAt(before, p, a);
    }
  }
  return {
    before: before === undefined ? undefined : showEnvMarkers(before),
    after: after === undefined ? undefined : showEnvMarkers(after),
  };
}

/** Stable YAML: sorted keys, no line folding, '' for nothing. */
export function toYaml(value: Json | undefined): string {
  if (value === undefined) return '';
  return stringify(value, { sortMapEntries: true, lineWidth: 0, minContentWidth: 0 });
}

export type DiffLineKind = 'add' | 'remove' | 'context' | 'gap';
export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

/** Unified diff lines (3 lines of context) between two YAML texts; hunks separated by a gap line. */
export function diffLines(beforeYaml: string, afterYaml: string): DiffLine[] {
  const patch = structuredPatch('before', 'after', beforeYaml, afterYaml, undefined, undefined, { context: 3 });
  const out: DiffLine[] = [];
  patch.hunks.forEach((hunk, i) => {
    if (i > 0) out.push({ kind: 'gap', text: '…' });
    for (const line of hunk.lines) {
      if (line.startsWith('\\')) continue; // "\ No newline at end of file"
      const kind: DiffLineKind = line[0] === '+' ? 'add' : line[0] === '-' ? 'remove' : 'context';
      out.push({ kind, text: line.slice(1) });
    }
  });
  return out;
}

/** The diff lines a change shows: its whole after for a create, before → after for an update or replace. */
export function changeDiff(change: Change): DiffLine[] {
  if (change.action === 'delete') return [];
  const { before, after } = displayPair(change);
  return diffLines(change.action === 'create' ? '' : toYaml(before), toYaml(after));
}

export interface PointerNote {
  pointer: string;
  note: string;
}

/** `(write-only, not compared)` and `(sensitive)` notes, one per pointer. */
export function pointerNotes(change: Change): PointerNote[] {
  const notes: PointerNote[] = [];
  for (const p of change.writeOnly) {
    notes.push({ pointer: p, note: change.rotate ? '(write-only, rotated: sent on purpose)' : '(write-only, not compared)' });
  }
  for (const p of change.sensitive) {
    if (!change.writeOnly.includes(p)) notes.push({ pointer: p, note: '(sensitive)' });
  }
  for (const p of change.unreturned ?? []) notes.push({ pointer: p, note: '(not returned by the service, not compared)' });
  return notes;
}
