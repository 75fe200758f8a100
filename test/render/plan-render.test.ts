import { describe, expect, it } from 'vitest';
import { type Change, type Plan, PLAN_FORMAT_VERSION } from '../../src/model/plan.js';
import { MARKDOWN_LIMIT, renderApplyReport, renderPlan } from '../../src/render/index.js';
import { escapeMd, fenced, inlineCode } from '../../src/render/markdown.js';
import { emptyPlan, fixtureApplyReport, fixturePlan, fixtureRefusedPlan } from './fixtures.js';

const text = (p: Plan) => renderPlan(p, 'text', { color: false });

describe('text', () => {
  it('ends with the summary line, or the no-changes sentence', () => {
    expect(text(fixturePlan()).trimEnd().split('\n').at(-1)).toBe('Plan: 4 to create, 4 to update, 1 to replace, 2 to delete. 1 unmanaged.');
    expect(text(emptyPlan()).trimEnd().split('\n').at(-1)).toBe('No changes. Live state matches the configuration.');
  });

  it('shows the refusal first', () => {
    expect(text(fixtureRefusedPlan()).split('\n')[0]).toMatch(/^Plan refused \(safety-threshold\): the plan deletes/);
  });

  it('colours only when asked', () => {
    expect(text(fixturePlan())).not.toContain('\u001b[');
    const coloured = renderPlan(fixturePlan(), 'text', { color: true });
    expect(coloured).toContain('\u001b[32m+ create\u001b[39m');
    expect(coloured).toContain('\u001b[33m~ update\u001b[39m');
    expect(coloured).toContain('\u001b[31m- delete\u001b[39m');
    expect(coloured).toContain('\u001b[31m-/+ replace\u001b[39m');
  });

  it('a write-only value not being rotated shows no difference; a rotated one does', () => {
    const plan = fixturePlan();
    expect(text(plan)).not.toMatch(/^\s+- {3}apiKey/m);
    const rotated = { ...plan, changes: plan.changes.map((c) => (c.name === 'datadog' ? { ...c, rotate: true } : c)) };
    const out = text(rotated);
    expect(out).toMatch(/^\s+- {3}apiKey: \(sensitive\)$/m);
    expect(out).toMatch(/^\s+\+ {3}apiKey: \(from \$\{env:DD_API_KEY\}\)$/m);
    expect(out).toContain('/data/apiKey (write-only, rotated: sent on purpose)');
  });

  it('an unchanged sensitive value is context, a changed one a difference', () => {
    const plan = fixturePlan();
    const splunk = plan.changes.find((c) => c.name === 'splunk') as Change;
    const unchanged = { ...plan, changes: [{ ...splunk, diff: splunk.diff!.filter((op) => op.path !== '/data/hecToken') }] };
    expect(text(unchanged)).toMatch(/^ {8} {2}hecToken: \(from \$\{env:SPLUNK_HEC_TOKEN\}\)$/m);
    expect(text(plan)).toMatch(/^ {6}- {3}hecToken: \(sensitive\)$/m);
  });
});

describe('json', () => {
  it('is one document with the contract members and no run-dependent budget values', () => {
    const out = renderPlan(fixturePlan(), 'json', { color: false });
    expect(out.endsWith('}\n')).toBe(true);
    const doc = JSON.parse(out);
    expect(Object.keys(doc)).toEqual(['formatVersion', 'summary', 'changes', 'unmanaged', 'diagnostics', 'apiCalls', 'budget', 'attribution']);
    expect(doc.summary).toEqual({ create: 4, update: 4, replace: 1, delete: 2, unmanaged: 1 });
    for (const c of doc.changes) expect(Object.keys(c).slice(0, 4)).toEqual(['action', 'kind', 'account', 'name']);
    expect(doc.budget[2]).toEqual({ bucket: 'DELETE AlertChannels', needed: 1 });
    expect(out).not.toContain('liveDigest');
  });

  it('is byte-identical for two plans of the same state whose budgets differ', () => {
    const a = fixturePlan();
    const b = fixturePlan();
    b.budget = b.budget.map((x) => ({ ...x, remaining: 3, waitSeconds: 99 }));
    b.apiCalls = { total: 9, byBucket: Object.fromEntries(Object.entries(a.apiCalls.byBucket).reverse()) };
    expect(renderPlan(b, 'json', { color: false })).toBe(renderPlan(a, 'json', { color: false }));
  });

  it('carries the refusal when there is one', () => {
    expect(JSON.parse(renderPlan(fixtureRefusedPlan(), 'json', { color: false })).refusal.code).toBe('safety-threshold');
  });

  it('apply report: summary per action and status, results with status', () => {
    const doc = JSON.parse(renderApplyReport(fixtureApplyReport(), 'json', { color: false }));
    expect(doc.summary).toEqual({ create: 2, update: 2, replace: 0, delete: 2, done: 4, failed: 1, skipped: 1 });
    expect(doc.results.map((r: { status: string }) => r.status)).toEqual(['done', 'done', 'failed', 'skipped', 'done', 'done']);
    expect(doc.waitedSeconds).toBe(75);
  });
});

describe('markdown', () => {
  it('starts with the marker, the danger line, then the summary table; deletions before other changes', () => {
    const md = renderPlan(fixtureRefusedPlan(), 'markdown', { color: false });
    expect(md.startsWith('<!-- postureops-plan -->\n\n## postureops plan\n\n> [!CAUTION]\n> **Review: 2 deletions.**\n')).toBe(true);
    const table = md.indexOf('| Account | Create | Update | Replace | Delete |');
    const refusal = md.indexOf('> [!CAUTION]\n> **Plan refused');
    const deletions = md.indexOf('### Deletions (2)');
    const changes = md.indexOf('### Changes');
    expect(table).toBeGreaterThan(0);
    expect(refusal).toBeGreaterThan(table);
    expect(deletions).toBeGreaterThan(refusal);
    expect(changes).toBeGreaterThan(deletions);
  });

  it('escapes names: no raw HTML, no table breaks, no broken fences', () => {
    const md = renderPlan(fixturePlan(), 'markdown', { color: false });
    expect(md).not.toContain('<night>');
    expect(md).toContain('ops \\`pager\\`\\|&lt;night&gt; \\*x\\*');
    expect(md).toContain('````diff');
    expect(escapeMd('a|b<c>`d`')).toBe('a\\|b&lt;c&gt;\\`d\\`');
    expect(inlineCode('a`b')).toBe('``a`b``');
    expect(fenced('diff', ['```'])).toBe('````diff\n```\n````');
  });

  it('apply report: marker, table, failures first', () => {
    const md = renderApplyReport(fixtureApplyReport(), 'markdown', { color: false });
    expect(md.startsWith('<!-- postureops-apply -->\n')).toBe(true);
    // All three present (indexOf -1 would pass a bare order check), in this order.
    const at = ['### Failed (1)', '### Skipped (1)', 'Done (4)'].map((h) => md.indexOf(h));
    expect(at.every((i) => i >= 0), at.join()).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(md).toContain('legacy\\|&lt;b&gt;');
  });
});

export function hugePlan(changes: number, deletions: number): Plan {
  const list: Change[] = [];
  for (let i = 0; i < changes; i++) {
    const account = i % 2 === 0 ? 'prod' : 'staging';
    const del = i < deletions;
    const name = `${del ? 'gone' : 'channel'}-${String(i).padStart(5, '0')}`;
    list.push({
      key: `${account}/AlertChannel/${name}`,
      action: del ? 'delete' : i % 3 === 0 ? 'create' : 'update',
      kind: 'AlertChannel',
      account,
      name,
      liveId: del || i % 3 !== 0 ? `ID_${i}` : undefined,
      before: del || i % 3 !== 0 ? { type: 'Webhook', enabled: true, data: { webhookUrl: `https://old.example.net/${i}` } } : undefined,
      after: del ? undefined : { type: 'Webhook', enabled: true, data: { webhookUrl: `https://new.example.net/${i}` } },
      diff: del || i % 3 === 0 ? undefined : [{ op: 'replace', path: '/data/webhookUrl', value: `https://new.example.net/${i}` }],
      writeOnly: [],
      sensitive: [],
      dependsOn: [],
      reason: del ? 'not declared; prune is on for AlertChannel' : undefined,
      reasonCode: del ? ('delete-because-not-declared' as const) : undefined,
      liveDigest: 'x',
    });
  }
  const count = (a: string) => list.filter((c) => c.action === a).length;
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    accounts: [{ name: 'prod', orgAccess: false }, { name: 'staging', orgAccess: false }],
    changes: list,
    summary: { create: count('create'), update: count('update'), replace: 0, delete: count('delete'), unmanaged: 0 },
    unmanaged: [],
    diagnostics: [],
    apiCalls: { total: 4, byBucket: {} },
    budget: [],
  };
}

describe('markdown size limit', () => {
  it('a huge plan stays within 60,000 characters and keeps the table and every deletion', () => {
    const plan = hugePlan(4000, 600);
    const md = renderPlan(plan, 'markdown', { color: false });
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(md).toContain('| **Total** | **1134** | **2266** | **0** | **600** |');
    for (const c of plan.changes.filter((x) => x.action === 'delete')) expect(md).toContain(`**${c.name.replace(/-/g, '-')}**`);
    // What is left out is said where it was: per account, the changes not shown at all.
    const hidden = [...md.matchAll(/_… (\d+) more changes of (prod|staging) not shown here; run `postureops plan` for the full plan_/g)];
    expect(hidden.map((m) => m[2])).toEqual(['prod', 'staging']);
    const shown = (md.match(/^\*\*[+~] (create|update)\*\*/gm) ?? []).length;
    expect(shown + hidden.reduce((n, m) => n + Number(m[1]), 0)).toBe(3400);
  });

  it('plain creates lose their diffs first, each marked where it was; updates keep theirs', () => {
    const plan = hugePlan(380, 10);
    const md = renderPlan(plan, 'markdown', { color: false });
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    // i % 3 === 0 is a create: its diff is omitted, in place; then the updates lose theirs from the end.
    expect(md).toContain('**+ create** AlertChannel **channel-00378**\n\n_diff omitted: 4 lines; run `postureops plan` for the full plan_');
    expect(md).not.toContain('https://new.example.net/378');
    expect(md).toContain('+   webhookUrl: https://new.example.net/11');
    expect(md).toContain('**~ update** AlertChannel **channel-00377** `ID_377`\n\n_diff omitted: 5 lines; run `postureops plan` for the full plan_');
    expect(md).not.toContain('more changes'); // every change keeps its line
    const creates = plan.changes.filter((c) => c.action === 'create').length;
    expect((md.match(/_diff omitted: /g) ?? []).length).toBeGreaterThanOrEqual(creates);
    // The deleted resources stay whole: each with what it held.
    expect(md).toContain('  -   webhookUrl: https://old.example.net/9');
  });

  it('a plan that fits leaves nothing out', () => {
    const md = renderPlan(fixturePlan(), 'markdown', { color: false });
    expect(md).not.toContain('omitted');
    expect(md).not.toContain('not shown');
  });

  it('an apply report of thousands of results keeps every failure', () => {
    const report = fixtureApplyReport();
    const done = report.results[0];
    report.results = [...Array.from({ length: 3000 }, (_, i) => ({ ...done, name: `ok-${i}`, key: `prod/AlertChannel/ok-${i}` })), ...report.results];
    report.summary.done += 3000;
    const md = renderApplyReport(report, 'markdown', { color: false });
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(md).toContain('### Failed (1)');
    expect(md).toContain('**critical-cloud**');
    expect(md).toMatch(/… truncated: \d+ results not shown/);
  });
});

describe('drift attribution', () => {
  const plan = fixturePlan();
  const text = renderPlan(plan, 'text', { color: false });
  const md = renderPlan(plan, 'markdown', { color: false });

  it('shows who last changed an updated record and when, beside the change, in text and Markdown', () => {
    expect(text).toMatch(/~ update AlertChannel datadog .*\n {6}last changed by second@example\.com at 2026-11-22T09:41:07\.000Z\n/);
    expect(md).toContain('**~ update** AlertChannel **datadog** `PROD_0A1B2C3D4E5F60718293A4B5C6D7E8F9` · `channels.yaml:9:1`\n_last changed by second@example.com at 2026-11-22T09:41:07.000Z_');
  });

  it('lists the matched audit entries under the resource, and says so when there were none', () => {
    expect(text).toContain('      audit log:\n        2026-11-22T09:41:07.000Z second@example.com update: Updated alert channel datadog');
    expect(text).toMatch(/critical-cloud .*\n(.*\n){1}\s+audit log: no entry in the last 7 days/);
    expect(md).toContain('  - audit log:\n    - 2026-11-21T22:10:00.000Z second@example.com create: Created alert channel legacy-webhook');
  });

  it('shows no audit section where the audit log was not read, nor for a create', () => {
    const staging = text.slice(text.indexOf('Account staging'), text.indexOf('Unmanaged'));
    expect(staging).toContain('last changed by old-admin@example.com');
    expect(staging).not.toContain('audit log');
    const create = text.slice(text.indexOf('+ create AlertChannel ops-slack'), text.indexOf('~ update AlertChannel datadog'));
    expect(create).not.toContain('audit log');
    const bare = renderPlan({ ...plan, attribution: undefined }, 'text', { color: false });
    expect(bare).not.toContain('audit log');
    expect(bare).toContain('last changed by second@example.com');
  });
});
