// What a person sees of a change's specs: secrets masked (again, defensively), env markers shown as
// the template they came from (a variable name, never its value), and a line diff of stable YAML.

import { structuredPatch } from 'diff';
import { yamlLib } from '../model/yaml-lib.js';
import { isEnvMarker, maskAt, ENV_MARKER, MASK } from '../model/env-markers.js';
import { type Change, type DiffOp, type ValueNames } from '../model/plan.js';
import type { Json, JsonObject } from '../model/json.js';
import { getAt, isWithin, setAt } from '../model/json-pointer.js';
import { plainYaml, plainYamlLines } from './plain-yaml.js';

/** Pointers whose values never appear: sensitive and write-only ones. */
export function secretPointers(change: Pick<Change, 'sensitive' | 'writeOnly'>): string[] {
  return [...new Set(change.writeOnly.length === 0 ? change.sensitive : [...change.sensitive, ...change.writeOnly])];
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

/** One coded value by its name; anything the table does not name stays as it is. */
function nameOf(value: Json, names: Readonly<Record<string, string>>): Json {
  return (typeof value === 'number' || typeof value === 'string') && Object.hasOwn(names, String(value)) ? names[String(value)] : value;
}

/** A spec with its coded values (severities) shown by name, as the file spells them. */
export function nameValues(spec: JsonObject, valueNames: readonly ValueNames[] | undefined): JsonObject;
export function nameValues(spec: JsonObject | undefined, valueNames: readonly ValueNames[] | undefined): JsonObject | undefined;
export function nameValues(spec: JsonObject | undefined, valueNames: readonly ValueNames[] | undefined): JsonObject | undefined {
  if (spec === undefined || !valueNames) return spec;
  let out = spec;
  for (const { pointer, names } of valueNames) {
    const value = getAt(out, pointer);
    if (value === undefined) continue;
    out = setAt(out, pointer, Array.isArray(value) ? value.map((v) => nameOf(v, names)) : nameOf(value, names));
  }
  return out;
}

/** A diff operation whose value is a coded value, or a list of them, by name. */
export function nameOp(op: DiffOp, valueNames: readonly ValueNames[] | undefined): DiffOp {
  if (op.value === undefined || !valueNames) return op;
  for (const { pointer, names } of valueNames) {
    const value = op.value as Json;
    if (op.path === pointer) return { ...op, value: Array.isArray(value) ? value.map((v) => nameOf(v, names)) : nameOf(value, names) };
    if (op.path.startsWith(pointer + '/') && !op.path.slice(pointer.length + 1).includes('/')) return { ...op, value: nameOf(value, names) };
  }
  return op;
}

/**
 * `{"$env": "${env:X}"}` → `(from ${env:X})`, everywhere in a value. Copied only along the paths to
 * a marker: a part without one is returned as it is (nothing writes to what this returns).
 */
export function showEnvMarkers(value: Json): Json {
  if (value === null || typeof value !== 'object') return value;
  if (isEnvMarker(value)) return `(from ${value[ENV_MARKER]})`;
  if (Array.isArray(value)) {
    let out: Json[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const shown = showEnvMarkers(value[i]);
      if (shown !== value[i]) (out ??= value.slice())[i] = shown;
    }
    return out ?? value;
  }
  let out: JsonObject | undefined;
  for (const k of Object.keys(value)) {
    const shown = showEnvMarkers(value[k]);
    if (shown !== value[k]) (out ??= { ...value })[k] = shown;
  }
  return out ?? value;
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
    before: before === undefined ? undefined : showEnvMarkers(nameValues(before, change.valueNames)),
    after: after === undefined ? undefined : showEnvMarkers(nameValues(after, change.valueNames)),
  };
}

/** Stable YAML: sorted keys, no line folding, '' for nothing. */
export function toYaml(value: Json | undefined): string {
  if (value === undefined) return '';
  return plainYaml(value) ?? yamlLib().stringify(value, { sortMapEntries: true, lineWidth: 0, minContentWidth: 0 });
}

/** Every line of toYaml(value) added, as diffLines('', toYaml(value)) says (a create's whole spec). */
function addedLines(value: Json | undefined): DiffLine[] {
  // The lines written directly hold no line break: the text's split, without joining and splitting it.
  const lines = value === undefined ? undefined : plainYamlLines(value);
  return lines === undefined ? diffLines('', toYaml(value)) : lines.map((text) => ({ kind: 'add', text }));
}

export type DiffLineKind = 'add' | 'remove' | 'context' | 'gap';
export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

/**
 * Unified diff lines (3 lines of context) between two YAML texts; hunks separated by a gap line. A
 * hunk that starts inside a mapping or list is preceded by the keys it sits under (as context, a
 * gap line where lines between are left out), so `- Compliance` never shows without its key.
 */
export function diffLines(beforeYaml: string, afterYaml: string): DiffLine[] {
  // From nothing (a create): every line added, as the patch below would say, without computing it.
  if (beforeYaml === '' && !afterYaml.includes('\r')) {
    if (afterYaml === '') return [];
    const lines = afterYaml.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    return lines.map((text) => ({ kind: 'add', text }));
  }
  const patch = structuredPatch('before', 'after', beforeYaml, afterYaml, undefined, undefined, { context: 3 });
  const beforeLines = beforeYaml.split('\n');
  const afterLines = afterYaml.split('\n');
  const out: DiffLine[] = [];
  patch.hunks.forEach((hunk, i) => {
    if (i > 0) out.push({ kind: 'gap', text: '…' });
    // A hunk that opens with an added line (no context above it) sits in the after text.
    const fromAfter = hunk.lines[0]?.startsWith('+') === true;
    const previous = patch.hunks[i - 1];
    // The keys the previous hunk already showed are not repeated.
    const shown = previous === undefined ? -1 : fromAfter ? previous.newStart + previous.newLines - 2 : previous.oldStart + previous.oldLines - 2;
    const parents = parentLines(fromAfter ? afterLines : beforeLines, (fromAfter ? hunk.newStart : hunk.oldStart) - 1, shown);
    for (const p of parents) {
      out.push({ kind: 'context', text: p.text });
      if (p.gapAfter) out.push({ kind: 'gap', text: '…' });
    }
    for (const line of hunk.lines) {
      if (line.startsWith('\\')) continue; // "\ No newline at end of file"
      const kind: DiffLineKind = line[0] === '+' ? 'add' : line[0] === '-' ? 'remove' : 'context';
      out.push({ kind, text: line.slice(1) });
    }
  });
  return out;
}

const indentOf = (line: string): number => line.length - line.trimStart().length;

/**
 * The lines above `start` (0-based) that `lines[start]` is nested in, outermost first: each the
 * nearest line above with less indentation, down to line `shown` (exclusive: already on screen).
 * `gapAfter` when lines between it and the next are left out.
 */
function parentLines(lines: readonly string[], start: number, shown: number): { text: string; gapAfter: boolean }[] {
  const first = lines[start];
  if (first === undefined || first.trim() === '') return [];
  const found: number[] = [];
  let indent = indentOf(first);
  for (let i = start - 1; i > shown && indent > 0; i--) {
    const line = lines[i];
    if (line.trim() === '' || indentOf(line) >= indent) continue;
    found.unshift(i);
    indent = indentOf(line);
  }
  return found.map((index, n) => ({ text: lines[index], gapAfter: (found[n + 1] ?? start) !== index + 1 }));
}

/** The diff lines a change shows: its whole after for a create, before → after for an update or replace. */
export function changeDiff(change: Change): DiffLine[] {
  if (change.action === 'delete') return [];
  const { before, after } = displayPair(change);
  return change.action === 'create' ? addedLines(after) : diffLines(toYaml(before), toYaml(after));
}

/** The diff lines of a child created with its parent: its whole spec, env markers shown. */
export function childDiff(child: { after: Json }): DiffLine[] {
  return addedLines(showEnvMarkers(child.after));
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
