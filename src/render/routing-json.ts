// Routing as one JSON document. The contract (README.md, "Routing"): `formatVersion`, and
// `accounts.<account>.<eventCategory>.<severity name>` → the sorted channel names (an empty list for
// a cell that reaches nothing); `details.<account>` holds the routes and what routes nothing.

import { inertJson } from '../model/inert.js';
import { type ReadValues, renderMasked } from '../model/read-values.js';
import { type ChannelHealth, ROUTING_FORMAT_VERSION, type RoutingMap, unreachedCells } from '../model/routing.js';
import type { RouteTestView } from './routing-text.js';

export function routesJson(map: RoutingMap): Record<string, unknown> {
  const accounts: Record<string, Record<string, Record<string, string[]>>> = {};
  const details: Record<string, unknown> = {};
  for (const acc of map.accounts) {
    const rows: Record<string, Record<string, string[]>> = {};
    for (const cell of acc.cells) (rows[cell.eventCategory] ??= {})[cell.severity] = [...cell.channels];
    accounts[acc.account] = rows;
    details[acc.account] = {
      channels: acc.channels.map((c) => ({ name: c.name, type: c.type, enabled: c.enabled, ...(c.health ? { health: healthJson(c.health) } : {}) })),
      routes: acc.cells.flatMap((cell) =>
        cell.routes.map((r) => ({
          eventCategory: cell.eventCategory,
          severity: cell.severity,
          channel: r.channel,
          channelType: r.channelType,
          rule: r.rule,
          // As written in the rule; "all" when it sets none.
          resourceGroups: r.resourceGroups ?? 'all',
          ...(r.conditions ? { conditions: Object.fromEntries(r.conditions.map((c) => [c.name, c.values])) } : {}),
        })),
      ),
      unreached: unreachedCells(acc).map((c) => ({ eventCategory: c.eventCategory, severity: c.severity })),
      unusedChannels: acc.unusedChannels,
      silentRules: acc.silentRules,
      disabledRules: acc.disabledRules,
      unknownChannels: acc.unknownChannels,
      // A map of the live state: the cells whose channels all fail, or some.
      ...(acc.health
        ? {
            silent: acc.cells.filter((c) => c.delivery === 'silent').map((c) => ({ eventCategory: c.eventCategory, severity: c.severity })),
            degraded: acc.cells.filter((c) => c.delivery === 'degraded').map((c) => ({ eventCategory: c.eventCategory, severity: c.severity })),
          }
        : {}),
    };
  }
  return { formatVersion: ROUTING_FORMAT_VERSION, source: map.source, accounts, details };
}

/** A channel's health as data: its state, its last success (ISO 8601), the service's detail, or why it is unknown. */
export function healthJson(h: ChannelHealth): Record<string, unknown> {
  return {
    state: h.state,
    ...(h.lastSuccess !== undefined ? { lastSuccess: isoOf(h.lastSuccess) } : {}),
    ...(h.detail !== undefined ? { detail: h.detail } : {}),
    ...(h.reason !== undefined ? { reason: h.reason } : {}),
  };
}

function isoOf(ms: number): string | number {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? ms : d.toISOString();
}

export function renderRoutesJson(shown: RoutingMap, options: { secrets?: ReadValues } = {}): string {
  return renderMasked(options.secrets, shown, (map) => renderRoutesJsonOf(map));
}

function renderRoutesJsonOf(map: RoutingMap): string {
  return inertJson(JSON.stringify(routesJson(map), null, 2)) + '\n';
}

export function renderRouteTestJson(shown: RouteTestView, options: { secrets?: ReadValues } = {}): string {
  return renderMasked(options.secrets, shown, (view) => renderRouteTestJsonOf(view));
}

function renderRouteTestJsonOf(view: RouteTestView): string {
  const doc = {
    formatVersion: ROUTING_FORMAT_VERSION,
    account: view.account,
    eventCategory: view.eventCategory,
    severity: view.severity,
    channels: view.cell?.channels ?? [],
    routes: (view.cell?.routes ?? []).map((r) => ({ channel: r.channel, channelType: r.channelType, rule: r.rule, resourceGroups: r.resourceGroups ?? 'all', ...(r.conditions ? { conditions: r.conditions } : {}) })),
    ...(view.health ? { health: Object.fromEntries(Object.entries(view.health).map(([name, h]) => [name, healthJson(h)])), failing: Object.keys(view.health).filter((n) => view.health![n].state === 'failing').sort() } : {}),
    ...(view.expect ? { expect: [...view.expect].sort(), ok: (view.missing ?? []).length === 0 && (view.extra ?? []).length === 0, missing: view.missing ?? [], unexpected: view.extra ?? [] } : {}),
  };
  return inertJson(JSON.stringify(doc, null, 2)) + '\n';
}
