// Channel health as a reviewer sees it (issue 35): the HTML report in Debian's chromium marks the
// silent and degraded cells and the failing channel, its detail (hostile here) shown as text; the
// Markdown map's Mermaid graph, with the failing channel's class, parses and renders with mermaid.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/index.js';
import { routingDimensions, routingInputs, type RoutedResource } from '../../src/kinds/routing.js';
import { routeAll } from '../../src/model/routing.js';
import { renderRoutesHtml } from '../../src/render/routing-html.js';
import { renderRoutesMarkdown } from '../../src/render/routing-markdown.js';
import { checkMermaid, mermaidBlocks, openHtml, startBrowser, type BrowserSession } from './chromium.js';

const T = Date.UTC(2026, 10, 20, 14, 0);
const DETAIL = '<img src=x onerror=alert(1)> @octocat </td></tr>';
const rule = (name: string, channels: string[], severity: number[]) => ({ kind: 'AlertRule', account: 'prod', name, spec: { enabled: true, channels, severity, eventCategory: ['Cloud'], resourceGroups: [] } });
const resources: RoutedResource[] = [
  { kind: 'AlertChannel', account: 'prod', name: 'pager', spec: { type: 'PagerDutyApi', enabled: true }, info: { ok: false, lastSuccessfulTime: T, details: DETAIL } },
  { kind: 'AlertChannel', account: 'prod', name: 'slack', spec: { type: 'SlackChannel', enabled: true }, info: { ok: true, lastSuccessfulTime: T } },
  rule('crit', ['pager', 'slack'], [1]),
  rule('high', ['pager'], [2]),
];
const map = routeAll(routingInputs(resources, ['prod'], KINDS, true), routingDimensions(KINDS), 'live');

describe('health in the HTML report and the Mermaid graph', () => {
  let session: BrowserSession;
  beforeAll(async () => {
    session = await startBrowser();
  });
  afterAll(async () => {
    await session.close();
  });

  it('marks the silent and the degraded cell and the failing channel; the detail is text', async () => {
    const loaded = await openHtml(session, renderRoutesHtml(map, { title: 'health' }));
    try {
      expect(loaded.errors).toEqual([]);
      expect(loaded.requests).toEqual([]);
      const high = loaded.page.locator('section[data-account="prod"] td[data-cell="Cloud/high"]');
      expect(await high.getAttribute('class')).toContain('silent');
      expect(await high.locator('.delivery').textContent()).toBe('silent: every channel failing');
      const crit = loaded.page.locator('section[data-account="prod"] td[data-cell="Cloud/critical"]');
      expect(await crit.locator('.delivery').textContent()).toBe('degraded: a channel failing');
      expect(await crit.locator('li.failing .channel').textContent()).toBe('pager');
      expect(await crit.locator('li:not(.failing) .channel').textContent()).toBe('slack');
      expect(await loaded.page.locator('li.failing-channel').textContent()).toBe(`Failing channel pager: failing since its last success at 2026-11-20 14:00 UTC: ${DETAIL}`);
      expect(await loaded.page.locator('img').count()).toBe(0);
    } finally {
      await loaded.page.context().close();
    }
  });

  it("the Markdown map's graph with the failing channel parses and renders", async () => {
    const blocks = mermaidBlocks(renderRoutesMarkdown(map));
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toContain('failing');
    expect(await checkMermaid(session, blocks)).toEqual([null]);
  });
});
