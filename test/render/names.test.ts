// Long names cut in the middle: the end kept, distinct names kept distinct, the scope of a rule whole.

import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/index.js';
import { routingDimensions, routingInputs, type RoutedResource } from '../../src/kinds/routing.js';
import { routeAll } from '../../src/model/routing.js';
import { shortMiddle, shortNames } from '../../src/render/names.js';
import { mermaidLabel, NAME_MAX, renderRoutesMarkdown } from '../../src/render/routing-markdown.js';

describe('names shortened in the middle', () => {
  it('keeps the start and the end around an ellipsis, counted in code points', () => {
    expect(shortMiddle('short', 10)).toBe('short');
    expect(shortMiddle('compliance-findings-to-jira-prod-eu', 20)).toBe('complianc…ra-prod-eu');
    expect([...shortMiddle('😀'.repeat(30), 9)]).toHaveLength(9);
    expect(shortMiddle('😀'.repeat(30), 9)).toBe('😀😀😀😀…😀😀😀😀');
  });

  it('names that cut alike stay apart, and never take the form of a name short enough to stay whole', () => {
    const long = (end: string) => `security-alerts-${'x'.repeat(80)}-${end}`;
    const names = [long('pagerduty'), long('pagerduty').replace('xxxxx', 'xxwxx'), 'a…b', 'sec…duty'];
    const short = shortNames(names, 20);
    const forms = names.map((n) => short.get(n)!);
    expect(new Set(forms).size).toBe(names.length);
    expect(forms.every((f) => [...f].length <= 20)).toBe(true);
    expect(short.get('a…b')).toBe('a…b');
    // They differ only in the middle: the later one in sorted order is numbered.
    expect(forms[0]).toMatch(/ ~2$/);
    expect(forms[1]!.endsWith('pagerduty')).toBe(true);
  });

  it("a rule's scope is never cut in the routes diagram; two long channel names draw apart", () => {
    const groups = ['rg-production-eu-west-1-clusters-and-everything-else-that-matters', 'rg-payments-pci-scope'];
    const chan = (end: string) => `team-security-operations-${'y'.repeat(90)}-${end}`;
    const resources: RoutedResource[] = [
      { kind: 'AlertChannel', account: 'prod', name: chan('slack'), spec: { type: 'SlackChannel', enabled: true, data: {} } },
      { kind: 'AlertChannel', account: 'prod', name: chan('jira'), spec: { type: 'Jira', enabled: true, data: {} } },
      { kind: 'AlertRule', account: 'prod', name: `scoped-${'z'.repeat(100)}`, spec: { enabled: true, channels: [chan('slack'), chan('jira')], severity: [1], eventCategory: ['Cloud'], resourceGroups: groups } },
    ];
    const md = renderRoutesMarkdown(routeAll(routingInputs(resources, ['prod'], KINDS), routingDimensions(KINDS), 'configuration'));
    expect(md).toContain(mermaidLabel(`; only resource groups ${groups.join(', ')}`).slice(1, -1));
    const labels = [...md.matchAll(/c\d+\("([^"]*)"\)/g)].map((m) => m[1]!);
    expect(labels).toHaveLength(2);
    expect(new Set(labels).size).toBe(2);
    expect(labels.some((l) => l.includes('slack')) && labels.some((l) => l.includes('jira'))).toBe(true);
    expect(labels.every((l) => l.includes('#8230;'))).toBe(true);
    expect(NAME_MAX).toBeLessThan(60);
  });
});
