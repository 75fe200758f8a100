// Fakes for kind tests: documents as the loader hands them over, a memoising fetch context that
// counts calls, a request context with known ids, and service records shaped like the emulator's.

import { expect } from 'vitest';
import type { DesiredResource, LiveResource, ResourceDocument } from '../../src/model/resource.js';
import type { FetchContext, Kind, RequestContext } from '../../src/kinds/types.js';
import type { JsonObject } from '../../src/model/json.js';
import { getAt, removeAt } from '../../src/model/json-pointer.js';

export const FILE = 'config/resources.yaml';

export function doc(
  kind: string,
  name: string,
  spec: JsonObject,
  opts: { account?: string; envRefs?: Record<string, string>; positions?: ResourceDocument['positions'] } = {},
): ResourceDocument {
  return {
    kind,
    name,
    account: opts.account ?? 'prod',
    spec,
    envRefs: opts.envRefs ?? {},
    source: { file: FILE, line: 3, column: 1 },
    positions: opts.positions ?? {},
  };
}

/** fromDocument of a document that must be clean; returns the resources. */
export function desiredOf(kind: Kind, d: ResourceDocument): DesiredResource[] {
  const { resources, diagnostics } = kind.fromDocument(d);
  expect(diagnostics).toEqual([]);
  return resources;
}

export interface CountingFetch extends FetchContext {
  /** Every ctx.get call, in order. */
  calls: string[];
  /** Calls that reached the (fake) service: one per path, as the engine memoises. */
  fetched: string[];
}

export function fetchCtx(responses: Record<string, unknown>, account = 'prod', orgAccess = false): CountingFetch {
  const cache = new Map<string, Promise<unknown>>();
  const ctx: CountingFetch = {
    account,
    orgAccess,
    calls: [],
    fetched: [],
    get(path: string) {
      ctx.calls.push(path);
      let hit = cache.get(path);
      if (!hit) {
        ctx.fetched.push(path);
        hit = path in responses ? Promise.resolve(structuredClone(responses[path])) : Promise.reject(new Error(`no fake response for ${path}`));
        cache.set(path, hit);
      }
      return hit;
    },
  };
  return ctx;
}

export function requestCtx(ids: Record<string, string> = {}, opts: { account?: string; orgAccess?: boolean } = {}): RequestContext {
  return {
    account: opts.account ?? 'prod',
    orgAccess: opts.orgAccess ?? false,
    resolve(kind: string, name: string) {
      const id = ids[`${kind}/${name}`];
      if (id === undefined) throw new Error(`unresolved ${kind}/${name}`);
      return id;
    },
  };
}

/** Spec without the members the engine never compares. */
export function comparable(kind: Kind, spec: JsonObject, other?: JsonObject): JsonObject {
  let out = spec;
  for (const ptr of (kind.secrets?.writeOnly?.(spec) ?? [])) out = removeAt(out, ptr);
  // Members the service never returns (by either side, as the diff takes them), and the objects left empty without them.
  for (const ptr of new Set([...(kind.secrets?.unreturned?.(spec) ?? []), ...(other ? (kind.secrets?.unreturned?.(other) ?? []) : [])])) {
    out = removeAt(out, ptr);
    const parent = ptr.slice(0, ptr.lastIndexOf('/'));
    const held = getAt(out, parent);
    if (held !== null && typeof held === 'object' && Object.keys(held).length === 0) out = removeAt(out, parent);
  }
  return out;
}

/** An integration record as the emulator answers it (response-only members included). */
export function integrationRecord(init: { intgGuid: string; name: string; type: string; enabled: 0 | 1; data: JsonObject }): JsonObject {
  return {
    createdOrUpdatedBy: 'admin@example.com',
    createdOrUpdatedTime: '2026-11-21T19:00:00.000Z',
    enabled: init.enabled,
    intgGuid: init.intgGuid,
    isOrg: 0,
    name: init.name,
    props: { createdBy: 'admin@example.com', createdTime: '2026-11-21T19:00:00.000Z', updatedBy: 'admin@example.com' },
    state: { ok: true, lastUpdatedTime: 1763751600000, lastSuccessfulTime: 1763751600000, details: {} },
    type: init.type,
    data: init.data,
  };
}

export function byName(resources: readonly LiveResource[], name: string): LiveResource {
  const found = resources.find((r) => r.name === name);
  if (!found) throw new Error(`no live resource ${name}`);
  return found;
}
