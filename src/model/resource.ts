// Resources as every layer sees them: a document read from a file, what it asks for (desired) and
// what the service holds (live). Kind-specific meaning lives in src/kinds; these are plain values.

import type { SourcePosition } from './diagnostics.js';
import type { JsonObject } from './json.js';

/** A validated document instantiated for one account (config layer output, kind input). */
export interface ResourceDocument {
  kind: string;
  name: string;
  account: string;
  /** The document's `spec`, `${env:...}` already substituted (real values: never print it). */
  spec: JsonObject;
  /** JSON pointers into `spec` whose value came from `${env:...}`, mapped to the raw template text. */
  envRefs: Record<string, string>;
  source: SourcePosition;
  /** Source position of spec members by JSON pointer, when the loader knows it. */
  positions: Record<string, SourcePosition>;
  /** The document's `previousNames` and `lifecycle`, when it gives them. */
  previousNames?: string[];
  lifecycle?: Lifecycle;
}

/** A document's `lifecycle`: what the engine must not do to the resource it declares. */
export interface Lifecycle {
  /** Refuse any plan that deletes or replaces the resource; --force does not override it. */
  preventDestroy?: boolean;
  /** JSON pointers into `spec` whose live value is kept: never compared, sent back as it is. */
  ignoreChanges?: string[];
}

export interface DesiredResource {
  kind: string;
  account: string;
  name: string;
  /** Name of the owning resource of `parentKind` (a template's profile). */
  parent?: string;
  /**
   * Canonical form, comparable member by member with LiveResource.spec. References hold names.
   * Holds real secret values: the engine masks before anything leaves it.
   */
  spec: JsonObject;
  /** JSON pointers into `spec` whose value came from `${env:...}`, mapped to the raw template. */
  envRefs: Record<string, string>;
  source?: SourcePosition;
  /** Names the live resource may still have: a rename keeps its id (`previousNames`). */
  previousNames?: string[];
  lifecycle?: Lifecycle;
  /**
   * Facts the kind's `check` needs from the document it came from; never compared, never rendered,
   * never sent. A template carries `{extends, pointer}`: its profile's base and `/spec/alerts/<i>`.
   */
  context?: JsonObject;
}

/** Where a value of a desired resource was written: `pointer` (spec-relative) holding `value`. */
export type PlaceOf = (pointer: string, value: string) => SourcePosition | undefined;

// Kept beside the resources, not in them: a resource stays plain data (compared, cloned, saved), and
// one copied or made otherwise simply has no places (its diagnostics stay at its document).
const places = new WeakMap<DesiredResource, PlaceOf>();

/** The loader says where `resource`'s values were written (worked out only when asked). */
export function setPlaces(resource: DesiredResource, place: PlaceOf): void {
  places.set(resource, place);
}

/** Where `resource` wrote `value` at `pointer` (a name in a list: the item's line), when its loader kept it. */
export function placeOf(resource: DesiredResource, pointer: string, value: string): SourcePosition | undefined {
  return places.get(resource)?.(pointer, value);
}

/** Who last wrote a live record and when, as the record itself says (no request of its own). */
export interface LastChange {
  /** The user the service names (`createdOrUpdatedBy`). */
  by?: string;
  /** ISO 8601 UTC; absent when the record's time is missing or not a time. */
  at?: string;
}

export interface LiveResource {
  kind: string;
  account: string;
  name: string;
  /** The service's identifier used in paths: intgGuid, mcGuid, alertProfileId, `profile.template`. */
  id: string;
  parent?: string;
  /** Canonical form. Reference members hold live ids until the engine maps them to names. */
  spec: JsonObject;
  /**
   * The id used in paths when `id` is a stand-in because the real one is a credential (an agent
   * access token is its own id). Never copied into a plan: apply looks it up afresh.
   */
  serviceId?: string;
  /** Read-only facts that are never compared (a profile's descriptionKeys, an integration's state). */
  info?: JsonObject;
  /** Predefined by the service: never planned, never listed as unmanaged, never pruned. */
  managedByService?: boolean;
  /** Who last changed the record and when, where the kind's records say (never compared). */
  lastChange?: LastChange;
}

/** The key of a resource within a run: account, kind and name (both halves index by it). */
export function resourceKey(account: string, kind: string, name: string): string {
  return `${account}/${kind}/${name}`;
}
