// Channel health in the routing map (issue 35): healthy, failing (since its last success, with the
// service's detail) or unknown; silent and degraded cells; the detail is the service's text, so it is
// masked where it was read (the record's own secrets) and at render (values read from the
// environment), cut to a bound, and inert in every medium.

import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/index.js';
import { DETAILS_MAX, detailsText, integrationHealth } from '../../src/kinds/integration.js';
import { routingDimensions, routingInputs, type RoutedResource } from '../../src/kinds/routing.js';
import { checkRequirement, deliveryOfMap, healthByName, routeAll, type RoutingRequirement } from '../../src/model/routing.js';
import { ReadValues } from '../../src/model/read-values.js';
import type { JsonObject } from '../../src/model/json.js';
import { renderRoutesJson, renderRouteTestJson } from '../../src/render/routing-json.js';
import { renderRoutesMarkdown } from '../../src/render/routing-markdown.js';
import { renderRoutesText, renderRouteTestText } from '../../src/render/routing-text.js';
import { renderRoutesHtml } from '../../src/render/routing-html.js';
import { expectMarkdownSafe, expectTerminalSafe, HOSTILE } from '../fixtures/hostile.js';

const dims = routingDimensions(KINDS);
const T = Date.UTC(2026, 10, 20, 14, 0);
const ENV_SECRET = 'env-secret-value-4711';
const rule = (name: string, channels: string[], severity: number[]) => ({ kind: 'AlertRule', account: 'prod', name, spec: { enabled: true, channels, severity, eventCategory: ['Cloud'], resourceGroups: [] } });
const channel = (name: string, type: string, info?: JsonObject): RoutedResource => ({ kind: 'AlertChannel', account: 'prod', name, spec: { type, enabled: true }, ...(info ? { info } : {}) });

function mapWith(detail: string) {
  const resources: RoutedResource[] = [
    channel('pager', 'PagerDutyApi', { ok: false, lastSuccessfulTime: T, details: detail }),
    channel('slack', 'SlackChannel', { ok: true, lastSuccessfulTime: T }),
    channel('fresh', 'Webhook', { ok: true, lastSuccessfulTime: 0 }),
    rule('crit', ['pager', 'slack'], [1]),
    rule('high', ['pager'], [2]),
    rule('medium', ['pager', 'fresh'], [3]),
  ];
  return routeAll(routingInputs(resources, ['prod'], KINDS, true), dims, 'live');
}
const cell = (m: ReturnType<typeof mapWith>, sev: string) => m.accounts[0].cells.find((c) => c.eventCategory === 'Cloud' && c.severity === sev)!;

describe('health in the map', () => {
  const map = mapWith('webhook revoked');

  it('a cell whose channels all fail is silent; one keeping another channel (healthy or not known to fail) is degraded', () => {
    expect(cell(map, 'critical').delivery).toBe('degraded');
    expect(cell(map, 'high').delivery).toBe('silent');
    expect(cell(map, 'medium').delivery).toBe('degraded');
    expect(cell(map, 'low').delivery).toBeUndefined();
    expect(deliveryOfMap(map)).toEqual([
      { account: 'prod', failing: [{ name: 'pager', type: 'PagerDutyApi', health: { state: 'failing', lastSuccess: T, detail: 'webhook revoked' } }], silent: ['Cloud/high'], degraded: ['Cloud/critical', 'Cloud/medium'] },
    ]);
    // A map of the configuration knows no health: nothing is silent there.
    const offline = routeAll(routingInputs([channel('pager', 'PagerDutyApi'), rule('crit', ['pager'], [1])], ['prod'], KINDS), dims, 'configuration');
    expect(offline.accounts[0].health).toBeUndefined();
    expect(offline.accounts[0].cells.every((c) => c.delivery === undefined)).toBe(true);
  });

  it('never succeeded (lastSuccessfulTime 0) or no state is unknown; names that repeat are healthy when one of them is', () => {
    expect(integrationHealth({ ok: false, lastSuccessfulTime: 0 })).toEqual({ state: 'unknown', reason: 'never succeeded' });
    expect(integrationHealth(undefined)).toEqual({ state: 'unknown', reason: 'the service reports no state' });
    expect(integrationHealth({ ok: true, lastSuccessfulTime: String(T) })).toEqual({ state: 'healthy', lastSuccess: T });
    expect(integrationHealth({ ok: false, lastSuccessfulTime: 'yesterday' }).state).toBe('unknown');
    const twins = healthByName([
      { name: 'p', type: 'PagerDutyApi', enabled: true, health: { state: 'failing', lastSuccess: T } },
      { name: 'p', type: 'PagerDutyApi', enabled: true, health: { state: 'healthy', lastSuccess: T } },
      { name: 'q', type: 'PagerDutyApi', enabled: false, health: { state: 'healthy', lastSuccess: T } },
    ]);
    expect(twins.get('p')?.state).toBe('healthy');
    expect(twins.has('q')).toBe(false);
  });

  it('a healthy: true requirement counts only healthy channels; without health (validate) it counts what is reached', () => {
    const req: RoutingRequirement = { name: 'pages', accounts: '*', eventCategories: ['Cloud'], severities: ['critical', 'high'], reach: { types: ['PagerDutyApi', 'SlackChannel'] }, allResources: false, healthy: true };
    expect(checkRequirement(req, map)?.accounts).toEqual([{ account: 'prod', cells: ['Cloud/high'] }]);
    expect(checkRequirement(req, map, undefined, true)).toBeUndefined();
    expect(checkRequirement({ ...req, healthy: false }, map)).toBeUndefined();
  });

  it('shows it in text, JSON (as data), Markdown and HTML', () => {
    const text = renderRoutesText(map, { color: false });
    expect(text).toContain('  Cloud        B!,C      B!    A,B!    -    -');
    expect(text).toContain('pager (PagerDutyApi) — failing since its last success at 2026-11-20 14:00 UTC: webhook revoked');
    expect(text).toContain('fresh (Webhook) — health unknown (never succeeded)');
    expect(text).toContain('Silent, every channel failing (1): Cloud/high');
    expect(text).toContain('Degraded, a channel failing (2): Cloud/critical, Cloud/medium');
    const json = JSON.parse(renderRoutesJson(map));
    expect(json.details.prod.channels.find((c: { name: string }) => c.name === 'pager').health).toEqual({ state: 'failing', lastSuccess: '2026-11-20T14:00:00.000Z', detail: 'webhook revoked' });
    expect(json.details.prod.silent).toEqual([{ eventCategory: 'Cloud', severity: 'high' }]);
    expect(json.details.prod.degraded).toHaveLength(2);
    const md = renderRoutesMarkdown(map);
    expect(md).toContain('| Cloud | degraded: pager (failing), slack | **silent:** pager (failing) | degraded: fresh, pager (failing) |');
    expect(md).toContain('- **Failing channel** pager: failing since its last success at 2026-11-20 14:00 UTC: webhook revoked');
    expect(md).toMatch(/class c\d+ failing/);
    const html = renderRoutesHtml(map, { title: 't' });
    expect(html).toContain('class="cell silent"');
    expect(html).toContain('<span class="delivery">silent: every channel failing</span>');
  });

  it('routes test names the failing channels', () => {
    const c = cell(map, 'high');
    const health = Object.fromEntries(c.channels.map((ch) => [ch, healthByName(map.accounts[0].channels).get(ch)!]));
    const view = { account: 'prod', eventCategory: 'Cloud', severity: 'high', cell: c, health };
    expect(renderRouteTestText(view, { color: false })).toContain('Silent: failing channel pager.');
    expect(JSON.parse(renderRouteTestJson(view)).failing).toEqual(['pager']);
  });
});

describe("the service's detail is untrusted", () => {
  it('the record\'s own secrets are masked where it is read, and it is cut to a bound', () => {
    expect(detailsText({ message: 'POST https://hooks.slack.com/services/T0/B0/XYZ failed: 404' }, ['https://hooks.slack.com/services/T0/B0/XYZ'])).toBe('POST **** failed: 404');
    expect(detailsText('x'.repeat(10_000), [])!.length).toBe(DETAILS_MAX);
    expect(detailsText({}, [])).toBeUndefined();
    expect(detailsText({ code: 7 }, [])).toBe('{"code":7}');
  });

  it('hostile details are inert in every medium, and a value read from the environment is masked', () => {
    for (const bad of [...HOSTILE, `leaks ${ENV_SECRET}`]) {
      const map = mapWith(detailsText(bad, []) ?? bad);
      const secrets = new ReadValues([ENV_SECRET]);
      const text = renderRoutesText(map, { color: false, secrets });
      expectTerminalSafe(text, 'routes text');
      expectMarkdownSafe(renderRoutesMarkdown(map, { secrets }), 'routes markdown');
      const json = renderRoutesJson(map, { secrets });
      expectTerminalSafe(json, 'routes json');
      for (const out of [text, json, renderRoutesMarkdown(map, { secrets })]) expect(out).not.toContain(ENV_SECRET);
      expect(renderRoutesHtml(map, { title: 't' })).not.toMatch(/<img|<\/details>/);
    }
  });
});
