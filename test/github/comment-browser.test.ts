// What a reviewer sees, as GitHub shows it: the comment, the refused comment, the drift issue and the
// routes map at issue 34's sizes, rendered as GFM (marked) and loaded in Debian's chromium, every
// Mermaid block parsed by the mermaid package there. Asserted on the rendered page: alert boxes hold
// their text, tables are tables, folds are folds, no diagram is an error box, every body stays under
// GitHub's 65,536 characters (UTF-16 code units, as JavaScript counts them).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { marked } from 'marked';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driftBody, failureBody, forkMarkdown, planBody, SUMMARY_LIMIT } from '../../src/github/bodies.js';
import { renderPlanMarkdown } from '../../src/render/plan-markdown.js';
import { KINDS } from '../../src/kinds/index.js';
import { routingDimensions, routingInputs, type RoutedResource } from '../../src/kinds/routing.js';
import { routeAll } from '../../src/model/routing.js';
import { renderRoutesMarkdown } from '../../src/render/routing-markdown.js';
import { mermaidBlocks, mermaidIn, openHtml, startBrowser, type BrowserSession } from '../browser/chromium.js';
import { expectMarkdownSafe } from '../fixtures/hostile.js';
import { driftPlan, importPlan, largePlan, largeResources } from './comment-scenarios.js';

const GITHUB_LIMIT = 65_536;
/** Built once: the two tests that read it need the same plan. */
let large: ReturnType<typeof largePlan> | undefined;
const theLargePlan = () => (large ??= largePlan());

const stamp = { folder: 'posture', sha: 'abcdef0123456789', runUrl: 'https://github.example/acme/posture/actions/runs/1' };
const ALERTS = ['NOTE', 'TIP', 'IMPORTANT', 'WARNING', 'CAUTION'];

/** GitHub's alert syntax: `> [!TYPE]` alone on the first line of a blockquote that starts a block, and text on the lines after it, quoted. */
function alertProblems(md: string): string[] {
  const lines = md.split('\n');
  const problems: string[] = [];
  lines.forEach((line, i) => {
    const m = /^(\s*)> \[!(\w+)\]\s*$/.exec(line);
    if (!m) return;
    if (m[1] !== '') problems.push(`line ${i + 1}: an alert inside another element (indented)`);
    if (!ALERTS.includes(m[2]!)) problems.push(`line ${i + 1}: unknown alert type ${m[2]}`);
    if (i > 0 && lines[i - 1] !== '') problems.push(`line ${i + 1}: the alert does not start a block`);
    if (!/^> \S/.test(lines[i + 1] ?? '')) problems.push(`line ${i + 1}: the alert's text does not follow it, quoted (${JSON.stringify(lines[i + 1])})`);
  });
  return problems;
}

interface Seen {
  alerts: { type: string; text: string }[];
  tables: number;
  details: number;
  openDetails: number;
  text: string;
}

describe('comments, the drift issue and the routes map, rendered', () => {
  let session: BrowserSession;
  beforeAll(async () => {
    session = await startBrowser();
  });
  afterAll(async () => {
    await session.close();
  });

  /**
   * Each Markdown as GFM HTML, all in one page of the browser: what a reader sees of alerts, tables
   * and folds; then, in the same page, mermaid's answer for each diagram (null: it renders).
   */
  async function rendered(mds: readonly string[], diagrams: readonly string[]): Promise<{ seen: Seen[]; answers: Array<string | null> }> {
    const sections = await Promise.all(mds.map(async (md, i) => `<section id="s${i}">${await marked.parse(md, { gfm: true, async: true })}</section>`));
    const { page, errors } = await openHtml(session, `<!doctype html><meta charset="utf-8"><body>${sections.join('')}</body>`);
    const seen = await page.evaluate((n: number) => {
      // The page's DOM, typed as far as used (the tests compile without the DOM library).
      interface Node {
        textContent: string | null;
        innerText: string;
        querySelectorAll(selector: string): ArrayLike<Node> & Iterable<Node>;
      }
      const document = (globalThis as unknown as { document: { getElementById(id: string): Node | null } }).document;
      return Array.from({ length: n }, (_, i) => {
        const root = document.getElementById(`s${i}`)!;
        const alerts = [...root.querySelectorAll('blockquote')]
          .map((q) => (q.textContent ?? '').trim())
          .filter((t) => /^\[!\w+\]/.test(t))
          .map((t) => ({ type: /^\[!(\w+)\]/.exec(t)![1]!, text: t.replace(/^\[!\w+\]/, '').trim() }));
        return { alerts, tables: root.querySelectorAll('table').length, details: root.querySelectorAll('details').length, openDetails: root.querySelectorAll('details > summary').length, text: root.innerText };
      });
    }, mds.length);
    expect(errors).toEqual([]);
    const answers = await mermaidIn(page, diagrams);
    await page.context().close();
    return { seen, answers };
  }

  /** Checks texts together (one page, one Mermaid pass): a browser start per text would be slow on a busy machine. */
  async function expectRendersWell(items: readonly (readonly [string, string, number?])[]): Promise<Seen[]> {
    for (const [what, md, limit = GITHUB_LIMIT - 4_000] of items) {
      expect(md.length, `${what}: ${md.length} UTF-16 code units`).toBeLessThan(limit);
      expect(alertProblems(md), what).toEqual([]);
      expectMarkdownSafe(md, what);
    }
    const blocks = items.flatMap(([what, md]) => mermaidBlocks(md).map((b, i) => [`${what}: Mermaid block ${i + 1}`, b] as const));
    const { seen, answers } = await rendered(
      items.map(([, md]) => md),
      blocks.map(([, b]) => b),
    );
    items.forEach(([what, md], i) => {
      const s = seen[i]!;
      for (const a of s.alerts) expect(a.text.length, `${what}: an empty ${a.type} box`).toBeGreaterThan(10);
      expect(s.alerts.length, what).toBe((md.match(/^> \[!\w+\]$/gm) ?? []).length);
      expect(s.tables, `${what}: tables`).toBe((md.match(/^\| ?-+:? \|/gm) ?? []).length);
      expect(s.details, `${what}: folds`).toBe((md.match(/<details>/g) ?? []).length);
      expect(s.openDetails, what).toBe(s.details);
    });
    answers.forEach((a, i) => expect(a, blocks[i]![0]).toBeNull());
    return seen;
  }

  it('the first import of an account (13 channels, a rule per cell: 520 edges over 40 cells): danger first, one legible diagram, the routes map says why it has none', async () => {
    const plan = importPlan(13);
    const body = planBody(stamp, plan).text;
    // Routes of the same account: 520 edges is past any legible diagram; one line says so.
    const resources: RoutedResource[] = plan.changes.map((c) => ({ kind: c.kind, account: c.account, name: c.name, spec: c.after! }));
    const routes = renderRoutesMarkdown(routeAll(routingInputs(resources, ['prod'], KINDS), routingDimensions(KINDS), 'configuration'));
    expect(mermaidBlocks(routes)).toEqual([]);
    expect(routes).toContain('No diagram: 520 rule → channel edges, more than the 100 a diagram keeps legible');
    const [seen] = await expectRendersWell([
      ['import comment', body],
      ['routes map', routes],
    ]);
    // Danger first: the first thing read under the title.
    const lines = seen.text.split('\n').filter((l) => l.trim() !== '');
    expect(lines[0]).toBe('postureops plan');
    expect(lines.slice(1, 3).join(' ')).toContain('Review: 13 new destinations (ops-channel-00, ops-channel-01, ops-channel-02 and 10 more).');
    // 40 cells gain the same 13 channels: one node, 13 edges.
    const [diagram] = mermaidBlocks(body);
    expect(diagram!.match(/==>/g)).toHaveLength(13);
    expect(body).toContain('— via created rule app-critical-to-everyone');
  });

  it('3 accounts × 50 channels × 250 rules, hostile names, refused: the refusal, then the whole plan folded, under the limit, every omission marked', async () => {
    const plan = theLargePlan();
    const refused = failureBody(stamp, { kind: 'refused', plan }, 0, (f) => f).text;
    const accepted = planBody(stamp, { ...plan, refusal: undefined }).text;
    const [seen, seenPlan] = await expectRendersWell([
      ['refused comment', refused],
      ['large comment', accepted],
    ]);
    expect(seen!.alerts[0]!.type).toBe('CAUTION');
    expect(seen!.alerts[0]!.text).toContain('No plan for this commit: the plan was refused (routing-requirement).');
    const folded = refused.slice(refused.indexOf('<details><summary>The refused plan:'));
    expect(folded).toMatch(/> \*\*Review: 150 deletions · \d+ cells? lose every channel · 1 routing requirement fails · 6 new destinations/);
    // Deletions first and whole; the rename and the routing-changing updates shown; plain creates marked.
    expect(folded.match(/— not declared; prune is on for AlertRule/g)).toHaveLength(150);
    expect(folded).toContain('-renamed');
    expect(folded).toMatch(/_diff omitted: \d+ lines?; see the \[job summary\]\[postureops-run\]_|_… \d+ more/);
    expect(refused.trimEnd().endsWith('[postureops-run]: https://github.example/acme/posture/actions/runs/1')).toBe(true);
    // Per account, the routing says which change does it.
    expect(folded).toMatch(/via deleted rule rule-/);
    // Distinct long names stay distinct when cut (the middle goes, the end stays).
    const rows = [...folded.matchAll(/^\| (\S[^|]*?-destination(?: ~\d+)?) \| /gm)].map((m) => m[1]);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r!.includes('…'))).toBe(true);

    expect(seenPlan!.alerts[0]!.text).toMatch(/^Review: 150 deletions · /);
    expect(accepted.indexOf('> **Review:')).toBeLessThan(accepted.indexOf('| Account |'));
  });

  it('at the same size, the job summary the comment links to holds the whole plan', async () => {
    const summary = renderPlanMarkdown(theLargePlan(), SUMMARY_LIMIT);
    const [seen] = await expectRendersWell([['job summary', summary, SUMMARY_LIMIT]]);
    expect(summary).not.toContain('omitted');
    expect(summary).not.toContain('not shown');
    expect(seen!.text).toContain('Deletions (150)');
  });

  it('at the same size, routes --format markdown renders, each account saying why it has no diagram', async () => {
    const routes = renderRoutesMarkdown(routeAll(routingInputs(largeResources(), theLargePlan().accounts.map((a) => a.name), KINDS), routingDimensions(KINDS), 'live'));
    await expectRendersWell([['large routes map (routes --format markdown: no size limit)', routes, Infinity]]);
    expect(routes.match(/No diagram: \d+ rule → channel edges/g)).toHaveLength(3);
  });

  it('the drift issue: which side is live, the console-only destination first, a console rename read as one', async () => {
    const body = driftBody(stamp, driftPlan()).text;
    await expectRendersWell([['drift issue', body], ['large drift issue', driftBody(stamp, theLargePlan()).text]]);
    const only = body.indexOf('### Destinations only the console has');
    const differs = body.indexOf('### What differs');
    expect(only).toBeGreaterThan(0);
    expect(differs).toBeGreaterThan(only);
    expect(body).toContain('- prod · **exfil-webhook** (Webhook): receives 1 cell (Cloud: critical) through rule copy-to-webhook');
    expect(body).toContain("- prod · **ops-chat** (SlackChannel) (renamed in the console from the repository's ops-slack): receives 1 cell");
    expect(body).toContain('**renamed in the console**: the console has **ops-chat**, the repository **ops-slack**');
    expect(body.slice(differs, body.indexOf('<details>'))).not.toContain('create');
  });

  it('the fork notice keeps its text inside its box', async () => {
    const [seen] = await expectRendersWell([['fork comment', forkMarkdown(true, 3, [], 0)]]);
    expect(seen!.alerts).toHaveLength(1);
    expect(seen!.alerts[0]!.text).toContain('This pull request comes from a fork.');
  });

  it('every Markdown golden renders: no error box, alerts with text', async () => {
    const dir = join(import.meta.dirname, '..', 'render', 'golden');
    await expectRendersWell(readdirSync(dir).filter((n) => n.endsWith('.md')).map((f) => [f, readFileSync(join(dir, f), 'utf8')] as const));
  });
});
