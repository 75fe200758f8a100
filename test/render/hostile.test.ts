// Outside text is inert wherever it lands: every hostile string of the corpus as a record name, an
// id, a service error message, a description (a multi-line value in the diff), an audit entry, a
// diagnostic and a refusal, through every renderer and every body the Action posts.

import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import type { DiagnosticCode } from '../../src/model/diagnostic-codes.js';
import { escapeHtml, escapeMd, fenced, hasUnsafe, inertJson, inertLog, inertText, inlineCode } from '../../src/model/inert.js';
import type { ApplyReport, Change, ChangeResult, Plan } from '../../src/model/plan.js';
import { renderApplyReport, renderPlan } from '../../src/render/index.js';
import { renderDiagnostics } from '../../src/render/diagnostics.js';
import { applyBody, driftBody, failureBody, planBody } from '../../src/github/bodies.js';
import { expectMarkdownSafe, expectNoWorkflowCommands, expectTerminalSafe, HOSTILE, outsideCode } from '../fixtures/hostile.js';
import { fixtureApplyReport, fixturePlan } from './fixtures.js';

const base = { writeOnly: [] as string[], sensitive: [] as string[], dependsOn: [] as string[], liveDigest: 'absent' };

function hostilePlan(): Plan {
  const plan = fixturePlan();
  const changes: Change[] = HOSTILE.flatMap((h, i): Change[] => [
    {
      ...base,
      key: `prod/AlertRule/c${i}`,
      action: 'create',
      kind: 'AlertRule',
      account: 'prod',
      name: h,
      after: { description: `line one\n${h}\nlast`, channels: [h] },
      source: { file: `rules/${h}.yaml`, line: 1, column: 1 },
    },
    {
      ...base,
      key: `prod/AlertRule/u${i}`,
      action: 'update',
      kind: 'AlertRule',
      account: 'prod',
      name: `u${i}`,
      liveId: h,
      reason: h,
      renamedFrom: h,
      before: { description: `${h}\nsame line\nold` },
      after: { description: `${h}\nsame line\nnew` },
      diff: [{ op: 'replace', path: '/description', value: `${h}\nsame line\nnew` }],
      changed: ['description'],
      lastChange: { by: h, at: '2026-11-22T09:41:07.000Z' },
      audit: [{ at: '2026-11-22T09:41:07.000Z', user: h, action: 'update', description: h }],
    },
    {
      ...base,
      key: `${h}/AlertChannel/d${i}`,
      action: 'delete',
      kind: 'AlertChannel',
      account: h,
      name: h,
      liveId: h,
      before: { type: 'Webhook', data: { url: h } },
      reason: h,
      lastChange: { by: h },
    },
  ]);
  const diagnostics: Diagnostic[] = HOSTILE.map((h) => ({ severity: 'warning', code: 'unknown-field', message: `unknown field ${h}`, file: `${h}.yaml`, line: 2, column: 3, field: h, hint: h }));
  return {
    ...plan,
    accounts: [...plan.accounts, ...HOSTILE.map((h) => ({ name: h, orgAccess: false }))],
    changes,
    summary: { create: HOSTILE.length, update: HOSTILE.length, replace: 0, delete: HOSTILE.length, unmanaged: HOSTILE.length },
    unmanaged: HOSTILE.map((h) => ({ kind: 'AlertChannel', account: h, name: h, id: h, protected: false, lastChange: { by: h } })),
    diagnostics,
    attribution: { accounts: ['prod'], start: '2026-11-15T00:00:00.000Z', end: '2026-11-22T00:00:00.000Z', days: 7, perResource: 5 },
    refusal: { code: 'safety-threshold', message: HOSTILE.join(' '), details: [...HOSTILE] },
    unread: [{ account: HOSTILE[0], kinds: ['AlertRule'] }],
  };
}

function hostileReport(): ApplyReport {
  const report = fixtureApplyReport();
  const results: ChangeResult[] = HOSTILE.flatMap((h, i): ChangeResult[] => [
    { key: `a/b/f${i}`, action: 'update', kind: 'AlertRule', account: h, name: h, status: 'failed', liveId: h, reason: `PATCH failed (permanent): 400: ${h}` },
    { key: `a/b/d${i}`, action: 'create', kind: 'AlertChannel', account: 'prod', name: h, status: 'done', liveId: h, test: { ok: false, message: h } },
    { key: `a/b/s${i}`, action: 'delete', kind: 'AlertChannel', account: 'prod', name: h, status: 'skipped', reason: h },
  ]);
  return {
    ...report,
    results,
    accounts: ['prod', ...HOSTILE],
    summary: { create: HOSTILE.length, update: HOSTILE.length, replace: 0, delete: HOSTILE.length, done: HOSTILE.length, failed: HOSTILE.length, skipped: HOSTILE.length },
    stopped: { cause: 'unreachable', message: HOSTILE.join(' '), notStarted: 1 },
    lease: { accounts: [HOSTILE[0]], waitedSeconds: 0, notes: [...HOSTILE] },
  };
}

const STAMP = { folder: 'posture', sha: 'c0ffee0000000000000000000000000000000001', runUrl: 'https://github.example/acme/posture/actions/runs/777' };
/** Our own annotation lines in diagnostics' github format. */
const ownCommand = (line: string) => /^::(?:error|warning) file=[^:\n]*::/.test(line);

describe('the corpus reaches every renderer raw', () => {
  it('the hostile plan and report carry every string of the corpus unchanged (what the checks below are about)', () => {
    const json = JSON.stringify([hostilePlan(), hostileReport()]);
    for (const h of HOSTILE) expect(json).toContain(JSON.stringify(h).slice(1, -1));
  });
});

describe('terminal text: plan, apply, diagnostics', () => {
  for (const color of [false, true]) {
    it(`plan text${color ? ' with colour' : ''}: no raw control or invisible character, no workflow command, our colours still there`, () => {
      const text = renderPlan(hostilePlan(), 'text', { color });
      expectTerminalSafe(text, 'plan text', color);
      // As printed (the CLI's write, the Action's log): the net defuses the v1 `##[` syntax too.
      expectNoWorkflowCommands(text, 'plan text', (line) => line.includes('##[') && !/^\s*::/.test(line));
      expectNoWorkflowCommands(inertLog(text, { colour: color }), 'plan text as printed');
      // The reader sees that something odd is there: the escapes are shown.
      expect(text).toContain('esc-\\x1b[31mred\\x1b[0m');
      expect(text).toContain('bidi-\\u202eevil');
      expect(text).toContain('n1\\n::set-output');
      if (color) expect(text).toContain('\u001b[32m+ create\u001b[39m');
    });
    it(`apply text${color ? ' with colour' : ''}`, () => {
      const text = renderApplyReport(hostileReport(), 'text', { color });
      expectTerminalSafe(text, 'apply text', color);
      expectNoWorkflowCommands(text, 'apply text', (line) => line.includes('##[') && !/^\s*::/.test(line));
      expectNoWorkflowCommands(inertLog(text, { colour: color }), 'apply text as printed');
      expect(text).toContain('cr-overwrite\\rApply: 0 failed');
    });
  }

  it('diagnostics text, json and github: values escaped, annotations only our own', () => {
    // Codes are a closed set; the renderers escape them all the same.
    const diags: Diagnostic[] = HOSTILE.map((h) => ({ severity: 'error', code: h as DiagnosticCode, message: h, file: h, line: 1, column: 1, hint: h }));
    for (const color of [false, true]) expectTerminalSafe(renderDiagnostics(diags, 'text', { color }), 'diagnostics text', color);
    const github = renderDiagnostics(diags, 'github', { color: false });
    expectTerminalSafe(github, 'diagnostics github');
    expectNoWorkflowCommands(github, 'diagnostics github', ownCommand);
    expect(github.split('\n').filter((l) => l !== '')).toHaveLength(HOSTILE.length);
    const json = renderDiagnostics(diags, 'json', { color: false });
    expectTerminalSafe(json, 'diagnostics json');
    expect(JSON.parse(json).diagnostics.map((d: Diagnostic) => d.message)).toEqual(HOSTILE);
  });
});

describe('JSON stays exact', () => {
  it('plan json parses back to the very values, and carries no raw control, C1, bidi or separator character', () => {
    const plan = hostilePlan();
    const text = renderPlan(plan, 'json', { color: false });
    expectTerminalSafe(text, 'plan json');
    expectNoWorkflowCommands(text, 'plan json');
    // The CLI's output net (inertLog) finds nothing to change in it: printed, it stays exact.
    expect(inertLog(text, { colour: true })).toBe(text);
    const doc = JSON.parse(text);
    expect(doc.changes.map((c: { name: string }) => c.name)).toEqual(plan.changes.map((c) => c.name));
    expect(doc.changes.map((c: { reason?: string }) => c.reason)).toEqual(plan.changes.map((c) => c.reason));
    expect(doc.changes.map((c: { after?: unknown }) => c.after)).toEqual(plan.changes.map((c) => c.after));
    expect(doc.unmanaged.map((u: { id: string }) => u.id)).toEqual([...HOSTILE]);
    expect(doc.refusal.details).toEqual([...HOSTILE]);
  });

  it('apply json parses back to the very values', () => {
    const report = hostileReport();
    const text = renderApplyReport(report, 'json', { color: false });
    expectTerminalSafe(text, 'apply json');
    expectNoWorkflowCommands(text, 'apply json');
    expect(inertLog(text, { colour: true })).toBe(text);
    const doc = JSON.parse(text);
    expect(doc.results.map((r: ChangeResult) => [r.name, r.reason, r.liveId, r.test])).toEqual(report.results.map((r) => [r.name, r.reason, r.liveId, r.test]));
    expect(doc.stopped.message).toBe(report.stopped!.message);
  });

  it('U+2028, U+2029, C1, bidi, tag characters and lone surrogates round-trip through inertJson', () => {
    for (const h of [...HOSTILE, '\u2028\u2029', '\ud83d\ude00 ok', '\udfff\ud800']) {
      const text = inertJson(JSON.stringify({ v: h }));
      expect(hasUnsafe(text), JSON.stringify(h)).toBe(false);
      expect(JSON.parse(text).v).toBe(h);
    }
    // Structure is untouched: indentation and newlines between tokens stay.
    expect(inertJson(JSON.stringify({ a: ['x'] }, null, 2))).toBe('{\n  "a": [\n    "x"\n  ]\n}');
  });
});

describe('Markdown: plan, apply, comment, drift issue', () => {
  it('plan markdown', () => expectMarkdownSafe(renderPlan(hostilePlan(), 'markdown', { color: false }), 'plan markdown'));
  it('apply markdown', () => expectMarkdownSafe(renderApplyReport(hostileReport(), 'markdown', { color: false }), 'apply markdown'));
  it('the pull-request comment (plan and apply) and the drift issue', () => {
    expectMarkdownSafe(planBody(STAMP, hostilePlan()).text, 'plan comment');
    expectMarkdownSafe(applyBody(STAMP, hostileReport()).text, 'apply comment');
    expectMarkdownSafe(driftBody(STAMP, hostilePlan()).text, 'drift issue');
  });
  it('failure comments quoting the service and the files', () => {
    const rel = (f: string) => f;
    for (const h of HOSTILE) {
      expectMarkdownSafe(failureBody(STAMP, { kind: 'service', message: h }, 0, rel).text, `service failure ${JSON.stringify(h)}`);
      const diagnostics: Diagnostic[] = [{ severity: 'error', code: 'schema-violation', message: h, file: h, line: 1 }];
      expectMarkdownSafe(failureBody(STAMP, { kind: 'invalid', diagnostics }, 1, rel).text, `invalid ${JSON.stringify(h)}`);
    }
  });
  it('a mention is kept readable, in a code span GitHub does not link', () => {
    const md = escapeMd('ping @octocat and @acme/security about org/repo#2, #1, GH-3 and https://github.com/o/r/issues/9');
    expect(md).toBe('ping `@octocat` and `@acme/security` about `org/repo#2`, `#1`, `GH-3` and `https://github.com/o/r/issues/9`');
    expect(outsideCode(md)).not.toMatch(/[@#]/);
    // Not a mention on GitHub either: an e-mail address stays as it is.
    expect(escapeMd('ops@example.com')).toBe('ops@example.com');
    expect(escapeHtml('<@octocat>')).toBe('&lt;<code>@octocat</code>&gt;');
  });
});

describe('the medium neutralisers', () => {
  it('terminal: one line, every odd character shown by its escape, idempotent', () => {
    expect(inertText('a\u001b[2Jb\r\nc\u202ed\u200be\u{e0041}\ud800')).toBe('a\\x1b[2Jb\\r\\nc\\u202ed\\u200be\\u{e0041}\\ud800');
    for (const h of HOSTILE) {
      const once = inertText(h);
      expect(inertText(once)).toBe(once);
      expect(once).not.toContain('\n');
      expectTerminalSafe(once, JSON.stringify(h));
    }
    expect(inertText('plain ascii, é, 日本, emoji 😀')).toBe('plain ascii, é, 日本, emoji 😀');
  });

  it('CI log: lines stay, our colours stay when asked, no line starts a workflow command', () => {
    const text = ['ok', ...HOSTILE, '  ::warning::indented', '\u00a0::error::nbsp', 'x ##[group]y'].join('\n');
    const log = inertLog(text);
    expectTerminalSafe(log, 'log');
    expectNoWorkflowCommands(log, 'log');
    expect(log.split('\n').length).toBe(text.split('\n').length);
    expect(log).toContain('  \\x3a:warning::indented');
    expect(inertLog('\u001b[31mred\u001b[39m \u001b[5mblink', { colour: true })).toBe('\u001b[31mred\u001b[39m \\x1b[5mblink');
    expect(inertLog('\u001b[31mred', { colour: false })).toBe('\\x1b[31mred');
    expect(inertLog('::error::ours', { commands: true })).toBe('::error::ours');
  });

  it('Markdown: code spans and fences hold whatever is inside', () => {
    for (const h of HOSTILE) {
      const span = inlineCode(h);
      expectMarkdownSafe(`| a |\n| --- |\n| ${span} |`, `span ${JSON.stringify(h)}`);
      expectMarkdownSafe(fenced('diff', [h, `+ ${h}`]), `fence ${JSON.stringify(h)}`);
    }
  });
});
