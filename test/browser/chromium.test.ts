import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMermaid, mermaidBlocks, openHtml, startBrowser, type BrowserSession } from './chromium.js';

describe('the browser harness', () => {
  let session: BrowserSession;
  beforeAll(async () => {
    session = await startBrowser();
  });
  afterAll(async () => {
    await session.close();
  });

  it('loads a page offline, reports its console errors and the requests it tried', async () => {
    const { page, errors, requests } = await openHtml(
      session,
      '<!doctype html><p id="x">hello</p><img src="https://cdn.example/a.png"><script>console.error("boom")</script>',
    );
    expect(await page.textContent('#x')).toBe('hello');
    expect(errors).toContain('boom');
    expect(requests).toContain('https://cdn.example/a.png');
    await page.context().close();
  });

  it('parses Mermaid blocks with the mermaid package and reports the broken one', async () => {
    const md = '# t\n```mermaid\nflowchart LR\n  a --> b\n```\n\n```mermaid\nflowchart LR\n  a -->\n```\n';
    const blocks = mermaidBlocks(md);
    expect(blocks).toHaveLength(2);
    const [good, bad] = await checkMermaid(session, blocks);
    expect(good).toBeNull();
    expect(bad).toMatch(/Parse error|error/i);
  });

  it("reports a diagram over mermaid's edge limit, as GitHub shows it", async () => {
    const edges = Array.from({ length: 520 }, (_, i) => `  a${i % 40} --> c${i % 13}`).join('\n');
    const [answer] = await checkMermaid(session, [`flowchart LR\n${edges}\n`]);
    expect(answer).toMatch(/Edge limit exceeded|error/);
  });
});
