// Resources → the facts routing maps are computed from (src/model/routing.ts), through each kind's
// routing hook. The config layer (validate), the engine (plans) and the CLI (`routes`) share it, so
// every one of them reads a rule or a channel the same way.

import type { JsonObject } from '../model/json.js';
import type { RoutingDimensions, RoutingInput } from '../model/routing.js';
import { KINDS } from './index.js';
import type { Kind } from './types.js';

/** A resource as routing needs it: desired or live, references as names. */
export interface RoutedResource {
  kind: string;
  account: string;
  name: string;
  spec: JsonObject;
  /** A live record's read-only facts (a channel's state): its health, in a map that reads health. */
  info?: JsonObject;
  /** Created or changed by a plan and not tested since: its health is unknown whatever it was. */
  untested?: boolean;
}

/** The dimensions of the first kind that declares them (the rule kind); none without one. */
export function routingDimensions(kinds: readonly Kind[] = KINDS): RoutingDimensions {
  for (const k of kinds) {
    const dims = k.routing?.dimensions?.();
    if (dims) return dims;
  }
  return { categories: [], severities: [] };
}

/** The kinds that take part in routing. */
export function routingKinds(kinds: readonly Kind[] = KINDS): Kind[] {
  return kinds.filter((k) => k.routing !== undefined);
}

/** The kinds whose resources a map cannot do without: its channels and its alert rules. */
export function essentialRoutingKinds(kinds: readonly Kind[] = KINDS): Kind[] {
  return kinds.filter((k) => k.routing?.role === 'channel' || k.routing?.role === 'rule');
}

/** What `routes --live` reads: the routing kinds and the kinds they name (resource groups, so scopes show names). */
export function routingReads(kinds: readonly Kind[] = KINDS): Kind[] {
  const wanted = new Set(routingKinds(kinds).flatMap((k) => [k.kind, ...(k.references ?? []).map((r) => r.kind)]));
  return kinds.filter((k) => wanted.has(k.kind));
}

/**
 * One input per account of `accounts` (in that order), from the resources of routing kinds. With
 * `health` (a map of the live state), each channel carries its health, read from the record's info
 * by its kind (no request: the state comes with the list).
 */
export function routingInputs(resources: readonly RoutedResource[], accounts: readonly string[], kinds: readonly Kind[] = KINDS, health = false): RoutingInput[] {
  const hooks = new Map(routingKinds(kinds).map((k) => [k.kind, k.routing!]));
  const inputs = new Map<string, RoutingInput>(accounts.map((a) => [a, { account: a, channels: [], rules: [] }]));
  for (const r of resources) {
    const hook = hooks.get(r.kind);
    const input = inputs.get(r.account);
    if (!hook || !input) continue;
    const part = hook.read(r.name, r.spec);
    if (part.role === 'channel') {
      if (health) {
        part.channel.health = r.untested
          ? { state: 'unknown', reason: 'created or changed by this plan, not tested yet' }
          : (hook.health?.(r.info) ?? { state: 'unknown', reason: 'the service reports no state' });
      }
      input.channels.push(part.channel);
    }
    else if (part.role === 'rule') input.rules.push(part.rule);
    else (input.consumers ??= []).push(part.consumer);
  }
  return [...inputs.values()];
}
