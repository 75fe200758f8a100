// renderDiagnostics: text for people, one JSON document for programs, workflow commands for GitHub.

import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import { escapeCommandData as escapeData, escapeCommandProperty as escapeProperty } from '../../src/model/inert.js';
import { renderDiagnostics } from '../../src/render/diagnostics.js';

const DIAGS: Diagnostic[] = [
  {
    severity: 'error',
    code: 'unknown-field',
    message: 'unknown field `slackurl` in `spec.data`; did you mean `slackUrl`?',
    file: 'channels/slack.yaml',
    line: 9,
    column: 5,
    field: '/spec/data/slackurl',
  },
  {
    severity: 'error',
    code: 'env-missing',
    message: 'environment variable SLACK_URL is not set',
    file: 'channels/slack.yaml',
    line: 9,
    column: 15,
    hint: 'set SLACK_URL in the environment',
  },
  { severity: 'warning', code: 'reference-not-declared', message: 'alert channel `pager` is not declared', file: 'rules/a.yaml', line: 4, column: 14 },
];

describe('renderDiagnostics text', () => {
  it('prints file:line:col: severity[code]: message, hints indented, then a summary', () => {
    expect(renderDiagnostics(DIAGS, 'text', { color: false })).toBe(
      [
        'channels/slack.yaml:9:5: error[unknown-field]: unknown field `slackurl` in `spec.data`; did you mean `slackUrl`?',
        'channels/slack.yaml:9:15: error[env-missing]: environment variable SLACK_URL is not set',
        '  = hint: set SLACK_URL in the environment',
        'rules/a.yaml:4:14: warning[reference-not-declared]: alert channel `pager` is not declared',
        '2 errors, 1 warning in 2 files',
        '',
      ].join('\n'),
    );
  });

  it('colours only when asked', () => {
    expect(renderDiagnostics(DIAGS, 'text', { color: true })).toContain('\u001b[31merror[unknown-field]\u001b[39m');
    expect(renderDiagnostics(DIAGS, 'text', { color: false })).not.toContain('\u001b[');
  });

  it('prints nothing when there is nothing to say, and handles diagnostics without a file', () => {
    expect(renderDiagnostics([], 'text', { color: false })).toBe('');
    const out = renderDiagnostics([{ severity: 'error', code: 'root-missing', message: 'no postureops.yaml in x' }], 'text', { color: false });
    expect(out).toBe('error[root-missing]: no postureops.yaml in x\n1 error, 0 warnings\n');
  });
});

describe('renderDiagnostics json', () => {
  it('is one JSON document with formatVersion, valid, summary and the diagnostics', () => {
    const doc = JSON.parse(renderDiagnostics(DIAGS, 'json', { color: true }));
    expect(doc).toEqual({ formatVersion: 1, valid: false, summary: { errors: 2, warnings: 1 }, diagnostics: DIAGS });
    expect(JSON.parse(renderDiagnostics([DIAGS[2]], 'json', { color: false })).valid).toBe(true);
    expect(JSON.parse(renderDiagnostics([], 'json', { color: false }))).toEqual({
      formatVersion: 1,
      valid: true,
      summary: { errors: 0, warnings: 0 },
      diagnostics: [],
    });
  });
});

describe('renderDiagnostics github', () => {
  it('writes workflow commands, errors and warnings', () => {
    expect(renderDiagnostics(DIAGS, 'github', { color: true }).split('\n')).toEqual([
      '::error file=channels/slack.yaml,line=9,col=5,title=unknown-field::unknown field `slackurl` in `spec.data`; did you mean `slackUrl`?',
      '::error file=channels/slack.yaml,line=9,col=15,title=env-missing::environment variable SLACK_URL is not set%0Aset SLACK_URL in the environment',
      '::warning file=rules/a.yaml,line=4,col=14,title=reference-not-declared::alert channel `pager` is not declared',
      '',
    ]);
  });

  it('escapes %, CR and LF in messages, and also : and , in properties', () => {
    expect(escapeData('100% done\r\nnext: a,b')).toBe('100%25 done%0D%0Anext: a,b');
    expect(escapeProperty('dir:a,b%.yaml')).toBe('dir%3Aa%2Cb%25.yaml');
    const out = renderDiagnostics(
      [{ severity: 'error', code: 'schema-violation', message: '50%\nline two', file: 'a,b:c.yaml', line: 1, column: 2 }],
      'github',
      { color: false },
    );
    // A line break inside a message is outside text: shown as `\n` (src/model/inert.ts), so only our own break between message and hint is %0A.
    expect(out).toBe('::error file=a%2Cb%3Ac.yaml,line=1,col=2,title=schema-violation::50%25\\nline two\n');
  });

  it('leaves out file properties when there is no file', () => {
    expect(renderDiagnostics([{ severity: 'error', code: 'root-missing', message: 'm' }], 'github', { color: false })).toBe('::error title=root-missing::m\n');
    expect(renderDiagnostics([], 'github', { color: false })).toBe('');
  });
});
