// Declared members: inside the objects a kind calls open (Kind.openMembers, e.g. an integration's
// `data`), a file states only the members it names. Live members it leaves out are neither a change
// nor lost: the diff compares what the file declares, and an update carries the live rest, because
// the service replaces such an object whole. A member set to null in the file means "remove it";
// where the live member is null already (the service holds nulls), there is nothing to remove.

import { isObject, type Json, type JsonObject } from '../../model/json.js';
import { getAt, setAt } from '../../model/json-pointer.js';

/** The open objects of a desired spec whose live twin is an object too (only those are completed). */
function openPairs(desired: JsonObject, live: JsonObject, open: readonly string[]): string[] {
  // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: getAt(x, '') is x itself: the test for '' is a shortcut
  return open.filter((p) => isObject(p === '' ? desired : getAt(desired, p)) && isObject(p === '' ? live : getAt(live, p)));
}

function at(spec: JsonObject, pointer: string): JsonObject {
  // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: getAt(x, '') is x itself: the test for '' is a shortcut
  const value = pointer === '' ? spec : getAt(spec, pointer);
  return isObject(value) ? value : {};
}

function put(spec: JsonObject, pointer: string, value: JsonObject): JsonObject {
  return pointer === '' ? value : setAt(spec, pointer, value);
}

/**
 * `desired` without its null members (the file's "remove it") inside its open objects. Copy on write:
 * an open object without a null is kept as it is (most specs: nothing is copied), as setAt does,
 * since a spec is never written to in place.
 */
export function withoutNulls(desired: JsonObject, open: readonly string[]): JsonObject {
  let out = desired;
  for (const p of open) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: a shortcut: a non-object reads as {} below, which holds no null; getAt(x, '') is x
    if (!isObject(p === '' ? desired : getAt(desired, p))) continue;
    const held = at(out, p);
    if (holdsNull(held)) out = put(out, p, stripNulls(held));
  }
  return out;
}

/** Whether stripNulls would change `obj`: a null member at any depth of its objects (a `__proto__` key is copied as stripNulls copies it). */
function holdsNull(obj: JsonObject): boolean {
  for (const k in obj) {
    // Stryker disable next-line ConditionalExpression: a JSON value has no inherited enumerable member
    if (!Object.hasOwn(obj, k)) continue;
    const v = obj[k];
    if (v === null || k === '__proto__' || (isObject(v) && holdsNull(v))) return true;
  }
  return false;
}

/** Live as the file sees it: inside the open objects, only the members the file names (null ones too). */
export function declaredLive(live: JsonObject, desired: JsonObject, open: readonly string[]): JsonObject {
  let out = live;
  for (const p of openPairs(desired, live, open)) out = put(out, p, project(at(live, p), at(desired, p)));
  return out;
}

/** What an update sends: the desired spec, completed inside its open objects by the live members it leaves out. */
export function carriedSpec(live: JsonObject, desired: JsonObject, open: readonly string[]): JsonObject {
  let out = withoutNulls(desired, open);
  for (const p of openPairs(desired, live, open)) out = put(out, p, overlay(at(live, p), at(desired, p)));
  return out;
}

function stripNulls(obj: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === null) continue;
    out[k] = isObject(v) ? stripNulls(v) : v;
  }
  return out;
}

function project(live: JsonObject, desired: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, d] of Object.entries(desired)) {
    if (!Object.hasOwn(live, k)) continue;
    const l = live[k];
    // null in the file, null in the service: both sides hold nothing (the file's side was stripped).
    if (d === null && l === null) continue;
    out[k] = isObject(d) && isObject(l) ? project(l, d) : l;
  }
  return out;
}

function overlay(live: JsonObject, desired: JsonObject): JsonObject {
  const out: JsonObject = structuredClone(live);
  for (const [k, d] of Object.entries(desired)) {
    // A live null stays as the service holds it; any other live value is removed.
    if (d === null) {
      if (live[k] !== null) delete out[k];
    } else {
      const l: Json | undefined = live[k];
      out[k] = isObject(d) && isObject(l) ? overlay(l, d) : isObject(d) ? stripNulls(d) : d;
    }
  }
  return out;
}
