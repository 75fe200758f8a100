// Field-level diff of one resource: canonical specs from the kind, write-only pointers and members
// the service never returns ignored on both sides, set-like arrays compared as sets, and every secret
// masked before anything leaves. The live rest an update carries holds nothing read masked or empty.

import jsonPatch from 'fast-json-patch';
import type { DesiredResource, LiveResource } from '../../model/resource.js';
import type { Kind } from '../../kinds/types.js';
import type { Json, JsonObject } from '../../model/json.js';
import { getAt, getAtPath, hasAt, isWithin, parsePointer, removeAt, setAt, setAtPath } from '../../model/json-pointer.js';
import { canonicalJson } from './digest.js';
import { markEnv, markLiterals, maskAt, MASK, protectData } from '../../model/env-markers.js';
import { resourceKey } from '../../model/resource.js';
import { type DiffOp } from '../../model/plan.js';
import { carriedSpec, declaredLive, withoutNulls } from './declared.js';
import { withoutWithheld } from '../../model/secret-detection.js';
import { compareText } from '../../model/compare.js';

export interface ResourceDiff {
  /** Top-level members that differ (plus the members holding write-only secrets when rotating). */
  changed: string[];
  /** JSON Patch from the masked before to the masked after. */
  diff: DiffOp[];
  before: JsonObject;
  after: JsonObject;
  writeOnly: string[];
  sensitive: string[];
  /** Members the service never returns (Kind.unreturned): not compared, shown as written. */
  unreturned?: string[];
  /** A member of `kind.replaceOn` changed. */
  replace: boolean;
  /**
   * Live members the service showed masked or empty that the file does not set: an update leaves
   * them out (a mask sent back would overwrite the secret), so a service that replaces `data` whole
   * drops them. The plan says so.
   */
  withheld: string[];
}

export interface DesiredView {
  /** Desired spec with env values as markers and other secrets masked: what a plan may hold. */
  after: JsonObject;
  writeOnly: string[];
  sensitive: string[];
  unreturned: string[];
}

export interface LiveView {
  before: JsonObject;
  writeOnly: string[];
  sensitive: string[];
}

// Most lists here hold none or one pointer: no set or sort is needed to copy them.
// Stryker disable next-line ConditionalExpression: the shortcut; a set and a sort of one item give it back as it is
const uniqueSorted = (items: readonly string[]): string[] => (items.length < 2 ? [...items] : [...new Set(items)].sort());

/** The plan's view of a desired resource (create, children). */
export function desiredView(kind: Kind, declared: DesiredResource): DesiredView {
  // A create has nothing to keep: the file's null members are simply left out.
  const spec = withoutNulls(declared.spec, kind.compare?.openMembers?.(declared.spec, declared.spec) ?? []);
  const writeOnly = uniqueSorted(kind.secrets?.writeOnly?.(spec) ?? []);
  const sensitive = uniqueSorted([...(kind.secrets?.sensitive?.(spec) ?? []), ...Object.keys(declared.envRefs)]);
  const after = sortSets([spec, afterOf(declared, spec, writeOnly, sensitive)], setPointersOf(kind, [spec]))[1];
  return { after, writeOnly, sensitive, unreturned: uniqueSorted(kind.secrets?.unreturned?.(spec) ?? []) };
}

/** The plan's view of a live resource (delete). */
export function liveView(kind: Kind, live: LiveResource): LiveView {
  const writeOnly = uniqueSorted((kind.secrets?.writeOnly?.(live.spec) ?? []));
  const sensitive = uniqueSorted((kind.secrets?.sensitive?.(live.spec) ?? []));
  const sets = setPointersOf(kind, [live.spec]);
  const [, before] = sortSets([live.spec, maskAt(live.spec, [...writeOnly, ...sensitive])], sets);
  return { before, writeOnly, sensitive };
}

/**
 * Compares desired with live: only the members the file declares (declared.ts); `after` is what an
 * update sends, the live members the file leaves out included. With `rotate`, the members holding
 * write-only secrets count as changed.
 */
export function diffResource(kind: Kind, desired: DesiredResource, live: LiveResource, rotate = false): ResourceDiff {
  const open = kind.compare?.openMembers?.(desired.spec, live.spec) ?? [];
  const d = withoutNulls(desired.spec, open);
  const l = declaredLive(live.spec, desired.spec, open);
  // The live rest never carries what the service showed masked or empty: that would overwrite the secret.
  const withheld: string[] = [];
  const full = withoutWithheld(carriedSpec(live.spec, desired.spec, open), live.spec, d, open, withheld);
  const sets = setPointersOf(kind, [d, l, full]);
  const envPointers = Object.keys(desired.envRefs);
  // A member the service shows empty and the file takes from the environment is a hidden secret
  // (export leaves such members of unknown types out and asks for exactly this): not compared.
  const hidden = envPointers.filter((p) => open.some((o) => isWithin(p, o)) && getAt(l, p) === '');
  const writeOnly = uniqueSorted([...(kind.secrets?.writeOnly?.(d) ?? []), ...(kind.secrets?.writeOnly?.(l) ?? []), ...hidden]);
  const sensitive = uniqueSorted([...(kind.secrets?.sensitive?.(d) ?? []), ...(kind.secrets?.sensitive?.(l) ?? []), ...(kind.secrets?.sensitive?.(full) ?? []), ...envPointers]);
  const masked = uniqueSorted([...writeOnly, ...sensitive]);
  // Pointers found on the desired side may sit at another index of a set array on the live side.
  const liveWriteOnly = uniqueSorted([...widen(writeOnly, sets, l), ...(kind.secrets?.writeOnly?.(l) ?? [])]);
  const unreturned = uniqueSorted([...(kind.secrets?.unreturned?.(d) ?? []), ...(kind.secrets?.unreturned?.(live.spec) ?? [])]);

  const [, after] = sortSets([full, afterOf(desired, full, writeOnly, sensitive)], sets);
  const shownLive = uniqueSorted([...widen(masked, sets, live.spec), ...(kind.secrets?.writeOnly?.(live.spec) ?? []), ...(kind.secrets?.sensitive?.(live.spec) ?? [])]);
  const [, before] = sortSets([live.spec, maskAt(live.spec, shownLive)], sets);

  // Compared forms: write-only members removed; the display twin has every secret as MASK.
  const [realAfter, shownAfter] = sortSets(
    [withoutUnreturned(removeAll(d, writeOnly), unreturned), withoutUnreturned(removeAll(maskAll(d, masked), writeOnly), unreturned)],
    sets,
  );
  const [realBefore] = sortSets([withoutUnreturned(removeAll(l, liveWriteOnly), unreturned)], sets);

  const changed = new Set<string>();
  for (const key of new Set([...Object.keys(realAfter), ...Object.keys(realBefore)])) {
    if (canonicalJson(realAfter[key]) !== canonicalJson(realBefore[key])) changed.add(key);
  }
  const diff: DiffOp[] = jsonPatch.compare(realBefore, realAfter).map((op) => toDiffOp(op, shownAfter));

  if (rotate) {
    for (const pointer of writeOnly) {
      if (!hasAt(d, pointer)) continue;
      changed.add(parsePointer(pointer)[0]);
      diff.push({ op: hasAt(l, pointer) ? 'replace' : 'add', path: pointer, value: MASK });
    }
    // What the service never returns cannot be compared: it is sent when asked for, like a secret.
    for (const pointer of unreturned) {
      if (!hasAt(d, pointer)) continue;
      changed.add(parsePointer(pointer)[0]);
      diff.push({ op: hasAt(l, pointer) ? 'replace' : 'add', path: pointer, value: getAt(maskAll(d, masked), pointer) ?? MASK });
    }
  }
  const changedList = [...changed].sort();
  return {
    changed: changedList,
    diff,
    before,
    after,
    writeOnly,
    sensitive,
    unreturned,
    replace: changedList.some((m) => fixedMembers(kind, d, l).includes(m)),
    withheld,
  };
}

/** Members no endpoint can change from `live` to `desired`: the kind's replaceOn and replaceWhen. */
export function fixedMembers(kind: Kind, desired: JsonObject, live: JsonObject): string[] {
  return [...(kind.compare?.replaceOn ?? []), ...(kind.compare?.replaceWhen?.(desired, live) ?? [])];
}

/**
 * The desired spec (`spec`: the resource's, as the diff completed it) as a plan holds it: env values as env markers, secrets written in a file as
 * literal markers (their place and a digest, never the value); apply resolves both.
 */
function afterOf(desired: DesiredResource, spec: JsonObject, writeOnly: string[], sensitive: string[]): JsonObject {
  const secrets = [...writeOnly, ...sensitive];
  // Text that only looks like a marker (a live member carried, a file's object) stays data: apply sends it as it is.
  const marked = markEnv(protectData(spec, [...Object.keys(desired.envRefs), ...secrets]), desired.envRefs);
  // Stryker disable next-line ConditionalExpression: a shortcut; without secrets markLiterals places nothing
  if (secrets.length === 0) return marked;
  const at = desired.source ? `${desired.source.file}:${desired.source.line}` : undefined;
  return markLiterals(marked, secrets, resourceKey(desired.account, desired.kind, desired.name), at);
}

function toDiffOp(op: { op: string; path: string; value?: unknown }, shownAfter: JsonObject): DiffOp {
  if (op.op === 'remove') return { op: 'remove', path: op.path };
  // Below a masked member there is nothing to show but the mask.
  const value = getAt(shownAfter, op.path);
  return { op: op.op === 'add' ? 'add' : 'replace', path: op.path, value: value === undefined ? MASK : value };
}

function setPointersOf(kind: Kind, specs: JsonObject[]): string[] {
  // Deepest first, so an outer set is ordered by already ordered members; by name within a depth.
  const found = specs.flatMap((s) => kind.compare?.setPointers?.(s) ?? []);
  // Already strictly in that order (unique, as most kinds list them): the set and the sort would give it back as it is.
  // Stryker disable next-line BooleanLiteral: starting unordered only takes the sort, which gives the same list
  let ordered = true;
  for (let i = 1; i < found.length && ordered; i++) ordered = deeperFirst(found[i - 1], found[i]) < 0;
  return ordered ? found : [...new Set(found)].sort(deeperFirst);
}

const deeperFirst = (a: string, b: string): number => b.length - a.length || compareText(a, b);

/**
 * Sorts the arrays at `pointers` in docs[0] by canonical JSON and applies the same permutation to
 * the other docs (same shape, masked twins), so paths stay valid across them.
 */
export function sortSets(docs: JsonObject[], pointers: readonly string[]): JsonObject[] {
  let out = [...docs];
  for (let p = 0; p < pointers.length; p++) {
    const path = parsePointer(pointers[p]);
    const base = getAtPath(out[0], path);
    if (!Array.isArray(base) || base.length < 2) continue;
    // Already in order (the loader writes sets in canonical order): the stable sort would keep it
    // as it is, so nothing is sorted or copied, as for a pointer that holds no array.
    let prev = canonicalJson(base[0]);
    let ordered = true;
    // Stryker disable next-line EqualityOperator: `<=` compares the last member with nothing once more, which can only send an ordered set to the stable sort (the same order)
    for (let k = 1; k < base.length && ordered; k++) {
      const key = canonicalJson(base[k]);
      ordered = compareText(prev, key) <= 0;
      prev = key;
    }
    if (ordered) continue;
    // Stable (ES2019): equal members keep their order.
    const order = base
      .map((v) => canonicalJson(v))
      .map((key, i) => ({ key, i }))
      .sort((a, b) => compareText(a.key, b.key))
      .map((x) => x.i);
    out = out.map((doc) => {
      const arr = getAtPath(doc, path);
      if (!Array.isArray(arr) || arr.length !== base.length) return doc;
      return setAtPath(doc, path, order.map((i) => arr[i]));
    });
  }
  return out;
}

/** A pointer into an element of a set array, applied to another spec: every element's twin. */
function widen(pointers: readonly string[], sets: readonly string[], spec: JsonObject): string[] {
  const out: string[] = [];
  for (const pointer of pointers) {
    // Stryker disable next-line ConditionalExpression: a pointer naming a whole set array: the kind's writeOnly/sensitive of the live spec name it whole as well (an env value is never an array)
    const set = sets.find((s) => pointer !== s && isWithin(pointer, s));
    const arr = set === undefined ? undefined : getAt(spec, set);
    // Stryker disable next-line ConditionalExpression: without a set, arr is undefined and the second test holds
    if (set === undefined || !Array.isArray(arr)) {
      out.push(pointer);
      continue;
    }
    const rest = pointer.slice(set.length + 1).split('/').slice(1);
    arr.forEach((_v, i) => out.push([set, String(i), ...rest].join('/')));
  }
  return out;
}

function removeAll(spec: JsonObject, pointers: readonly string[]): JsonObject {
  // Deepest first so array indices of shallower pointers stay valid.
  return [...pointers].sort((a, b) => b.length - a.length).reduce((acc, p) => removeAt(acc, p), spec);
}

/** Without the members the service never returns, and without the objects that held only them. */
function withoutUnreturned(spec: JsonObject, pointers: readonly string[]): JsonObject {
  let out = removeAll(spec, pointers);
  for (const pointer of pointers) {
    const parent = pointer.slice(0, pointer.lastIndexOf('/'));
    const held = parent === '' ? undefined : getAt(out, parent);
    if (held !== null && typeof held === 'object' && !Array.isArray(held) && Object.keys(held).length === 0) out = removeAt(out, parent);
  }
  return out;
}

function maskAll(spec: JsonObject, pointers: readonly string[]): JsonObject {
  return pointers.reduce((acc, p) => (hasAt(acc, p) ? setAt(acc, p, MASK as Json) : acc), spec);
}
