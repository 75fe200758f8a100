// Routing renderings: the JSON contract, the terminal table, the Markdown map and the plan's routing
// section, with names that try to break out of a Mermaid label, a table cell or the terminal.

import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/index.js';
import { routingDimensions, routingInputs, type RoutedResource } from '../../src/kinds/routing.js';
import type { Plan } from '../../src/model/plan.js';
import { diffRouting, routeAll, routingChangesByAccount, type PlanRouting, type RoutingMap } from '../../src/model/routing.js';
import { renderPlanJson } from '../../src/render/plan-json.js';
import { renderPlanMarkdown } from '../../src/render/plan-markdown.js';
import { renderPlanText } from '../../src/render/plan-text.js';
import { renderRoutesJson } from '../../src/render/routing-json.js';
import { palette } from '../../src/render/ansi.js';
import { mermaidLabel, renderRoutesMarkdown, routingChangesDiagram, routingChangesMd, routingWarningMd } from '../../src/render/routing-markdown.js';
import { planRoutingLines, renderRoutesText, renderRouteTestText } from '../../src/render/routing-text.js';
import { expectMarkdownSafe, expectTerminalSafe, HOSTILE } from '../fixtures/hostile.js';
import { emptyPlan } from './fixtures.js';

const dims = routingDimensions(KINDS);
const EVIL = 'x"]\n  click c0 "https://evil.example" _blank <img src=x onerror=alert(1)> @org/team ```';
const resources: RoutedResource[] = [
  { kind: 'AlertChannel', account: 'prod', name: 'pager', spec: { type: 'PagerDutyApi', enabled: true } },
  { kind: 'AlertChannel', account: 'prod', name: EVIL, spec: { type: 'Webhook', enabled: true } },
  { kind: 'AlertChannel', account: 'prod', name: 'idle', spec: { type: 'SlackChannel', enabled: false } },
  { kind: 'AlertRule', account: 'prod', name: 'crit', spec: { enabled: true, channels: ['pager', EVIL], severity: [1], eventCategory: ['Cloud'], resourceGroups: ['prod-eu'] } },
  { kind: 'AlertRule', account: 'prod', name: 'off', spec: { enabled: true, channels: ['idle'], severity: [2] } },
];
const map: RoutingMap = routeAll(routingInputs(resources, ['prod'], KINDS), dims, 'configuration');

describe('routes JSON', () => {
  it('has formatVersion and accounts.<account>.<category>.<severity> → sorted channel names, [] when none', () => {
    const doc = JSON.parse(renderRoutesJson(map));
    expect(doc.formatVersion).toBe(1);
    expect(Object.keys(doc.accounts.prod)).toEqual(dims.categories);
    expect(Object.keys(doc.accounts.prod.Cloud)).toEqual(['critical', 'high', 'medium', 'low', 'info']);
    expect(doc.accounts.prod.Cloud.critical).toEqual(['pager', EVIL].sort());
    expect(doc.accounts.prod.Cloud.high).toEqual([]);
    expect(doc.details.prod.routes[0]).toMatchObject({ eventCategory: 'Cloud', severity: 'critical', rule: 'crit', resourceGroups: ['prod-eu'] });
    expect(doc.details.prod.silentRules).toEqual(['off']);
    expect(doc.details.prod.unusedChannels).toEqual([]);
    expect(doc.details.prod.unreached).toHaveLength(dims.categories.length * dims.severities.length - 1);
  });
});

describe('routes text', () => {
  it('is a compact table per account that fits a terminal, with no control character from a name', () => {
    const text = renderRoutesText(map, { color: false });
    const lines = text.split('\n');
    const table = lines.slice(1, 2 + dims.categories.length);
    expect(table[0].trim().split(/\s+/)).toEqual(['critical', 'high', 'medium', 'low', 'info']);
    expect(Math.max(...table.map((l) => l.length))).toBeLessThanOrEqual(80);
    expect(table.find((l) => l.trim().startsWith('Cloud'))).toMatch(/Cloud\s+B\*,C\*\s+-/);
    expect(text).toContain('Rules whose channels are all disabled: off');
    expect(text).toContain('crit → ');
    expect(text).toContain('(only resource groups prod-eu)');
    const evil = renderRoutesText(routeAll(routingInputs([{ kind: 'AlertChannel', account: 'prod', name: 'a\u001b[2Jb', spec: { type: 'Webhook', enabled: true } }], ['prod'], KINDS), dims, 'live'), { color: false });
    expect(evil).not.toContain('\u001b');
    expect(evil).toContain('[2Jb');
  });

  it('routes test names each channel with the rule that brings it', () => {
    const cell = map.accounts[0].cells.find((c) => c.eventCategory === 'Cloud' && c.severity === 'critical')!;
    const text = renderRouteTestText({ account: 'prod', eventCategory: 'Cloud', severity: 'critical', cell, expect: ['pager'], missing: [], extra: [EVIL] }, { color: false });
    expect(text).toContain('pager (PagerDutyApi) via rule crit (only resource groups prod-eu)');
    expect(text).toContain('Not as expected (pager):');
    expect(text.split('\n').filter((l) => l.includes('click'))).toHaveLength(2);
  });
});

describe('Markdown and Mermaid', () => {
  it('a label is quoted and cannot end itself, the diagram, the code block, or become HTML or a mention', () => {
    const label = mermaidLabel(EVIL);
    expect(label.startsWith('"') && label.endsWith('"')).toBe(true);
    const inner = label.slice(1, -1);
    for (const bad of ['"', '\n', '<', '>', '`', '@', ']', '[']) expect(inner).not.toContain(bad);
    expect(inner).toContain('#34;#93;');
  });

  it('the routes map has a Mermaid graph of rules and channels and a table of cells, names escaped', () => {
    const md = renderRoutesMarkdown(map);
    const blocks = [...md.matchAll(/```mermaid\n([\s\S]*?)\n```/g)].map((m) => m[1]);
    expect(blocks).toHaveLength(1);
    const lines = blocks[0].split('\n');
    expect(lines[0]).toBe('flowchart LR');
    // Every line is a node, an edge, or the header: nothing a name could have added.
    for (const l of lines.slice(1)) expect(l).toMatch(/^ {2}(r\d+\[".*"\]|c\d+\(".*"\)|r\d+ --> c\d+)$/);
    expect(md).toContain('| Event category | critical | high | medium | low | info |');
    expect(md).not.toContain('<img');
    expect(md).toContain('**Rules whose channels are all disabled:** off');
  });

  it("a plan's comment: a warning at the top for silenced cells, then the Routing changes section and its diagram", () => {
    const after = routeAll(routingInputs(resources.filter((r) => r.name !== 'crit'), ['prod'], KINDS), dims, 'live');
    const routing: PlanRouting = { accounts: ['prod'], changes: diffRouting(map, after), failing: [{ requirement: 'pages', accounts: [{ account: 'prod', cells: ['Cloud/critical'] }] }] };
    const plan: Plan = { ...emptyPlan(), routing };
    const md = renderPlanMarkdown(plan);
    const warning = md.indexOf('> [!WARNING]');
    expect(warning).toBeGreaterThan(0);
    expect(warning).toBeLessThan(md.indexOf('### Routing changes'));
    expect(md).toContain('### Routing changes (1 cell)');
    expect(md).toContain('**Requirement pages fails after this plan:**');
    expect(md).not.toContain('<img');
    const diagram = routingChangesDiagram(routingChangesByAccount(routing.changes)[0]);
    expect(md).toContain(diagram);
    expect(diagram).toContain('class k0 silenced');
    expect(diagram.split('\n').filter((l) => l.includes(' -. lost .-> '))).toHaveLength(2);
    // Only the changed cell, as a matrix; a table per channel.
    expect(md).toMatch(/<summary><b>prod<\/b>: 1 cell changes, 1 loses every channel<\/summary>\n\n\| Event category \| critical \|\n\| --- \| --- \|\n\| Cloud \| −pager −x.* \*\*none left\*\* \|\n/);
    expect(md).toContain('| pager | — | Cloud: critical |');
    expect(JSON.parse(renderPlanJson(plan)).routing).toEqual(routing);
    expect(renderPlanText(plan, { color: false })).toContain('Warning: after this plan 1 cell that reached a channel reaches none:');
  });

  it('a plan without routing changes says nothing about routing', () => {
    const plan: Plan = { ...emptyPlan(), routing: { accounts: ['prod'], changes: [] } };
    expect(renderPlanMarkdown(plan)).not.toContain('Routing');
    expect(renderPlanText(plan, { color: false })).not.toContain('Routing');
  });
});

describe('the hostile corpus through every routing rendering', () => {
  const names = HOSTILE.map((h, i) => `${i}:${h}`);
  const hostile: RoutedResource[] = [
    ...names.map((n) => ({ kind: 'AlertChannel', account: 'prod', name: n, spec: { type: n, enabled: true } })),
    ...names.map((n, i) => ({ kind: 'AlertRule', account: 'prod', name: `rule ${n}`, spec: { enabled: true, channels: [n], severity: [(i % 5) + 1], eventCategory: [n], resourceGroups: [n] } })),
  ];
  const hmap = routeAll(routingInputs(hostile, ['prod'], KINDS), dims, 'live');
  const none = routeAll(routingInputs(hostile.filter((r) => r.kind === 'AlertChannel'), ['prod'], KINDS), dims, 'live');
  const routing: PlanRouting = { accounts: ['prod'], changes: diffRouting(hmap, none), failing: [{ requirement: names[0], accounts: [{ account: 'prod', cells: names }] }] };

  it('terminal: routes, routes test and the plan section carry no raw control character', () => {
    for (const color of [false, true]) {
      expectTerminalSafe(renderRoutesText(hmap, { color }), 'routes text', color);
      expectTerminalSafe(planRoutingLines(routing, palette(color)).join('\n'), 'plan routing text', color);
      const cell = hmap.accounts[0].cells.find((c) => c.routes.length > 0)!;
      expectTerminalSafe(renderRouteTestText({ account: 'prod', eventCategory: cell.eventCategory, severity: cell.severity, cell, expect: names, missing: names, extra: names }, { color }), 'routes test', color);
    }
  });

  it('Markdown: the map, the warning and the Routing changes section are safe, diagrams included', () => {
    for (const md of [renderRoutesMarkdown(hmap), routingWarningMd(routing), routingChangesMd(routing), routingChangesMd(routing, 'compact')]) {
      expectMarkdownSafe(md, 'routing markdown');
      for (const block of md.matchAll(/```mermaid\n([\s\S]*?)\n```/g)) {
        for (const line of block[1].split('\n').slice(1)) expect(line).toMatch(/^ {2}([rkc]\d+(\[".*"\]|\(".*"\))|[rk]\d+ (-->|== gained ==>|-\. lost \.->) c\d+|classDef silenced .*|class [k\d,]+ silenced)$/);
        for (const label of block[1].matchAll(/"(.*?)"/g)) expect(label[1]).not.toMatch(/[<>`@"\]\[]/);
      }
    }
  });

  it('JSON parses back to the very names', () => {
    const doc = JSON.parse(renderRoutesJson(hmap));
    expectTerminalSafe(renderRoutesJson(hmap), 'routes json');
    expect(doc.details.prod.channels.map((c: { name: string }) => c.name).sort()).toEqual([...names].sort());
  });
});
