// The built CLI as a terminal shows it: in a real pseudo-terminal of 80 columns (script(1)), and
// through pipes. Text wraps to the width with a hanging indent, never inside a word; TERM=dumb gets
// neither colour nor cursor codes; FORCE_COLOR colours a pipe too, with no cursor code; NO_COLOR and
// --no-color win over it; a reader that stops early (`--help | head -1`) ends the run quietly.

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';
import { visibleWidth, wrapText } from '../../src/render/wrap.js';
import { PassThrough } from 'node:stream';
import type { Io } from '../../cmd/io.js';
import { consoleOf } from '../../cmd/terminal.js';

const run = promisify(execFile);
const ROOT = packageRoot();
const BIN = join(ROOT, 'dist', 'cmd', 'postureops.js');
const EXAMPLES = join(ROOT, 'examples');
const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** A clean environment: no colour variable of the caller's. */
function env(extra: Record<string, string>): Record<string, string> {
  const base: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LANG: 'C.UTF-8' };
  return { ...base, ...extra };
}

/** The CLI in a pseudo-terminal of 80 columns: what the terminal received (stdout and stderr both). */
async function inTerminal(args: string[], extra: Record<string, string>): Promise<string> {
  const command = `stty cols 80 rows 50; exec ${quote(process.execPath)} ${[BIN, ...args].map(quote).join(' ')}`;
  const { stdout } = await run('script', ['-qfec', command, '/dev/null'], { env: env(extra), maxBuffer: 16 * 1024 * 1024 });
  return stdout.replace(/\r\n/g, '\n');
}

async function piped(args: string[], extra: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [BIN, ...args], { env: env(extra), maxBuffer: 16 * 1024 * 1024 });
}

const ESC = /\u001b/;
/** Anything but colour: cursor moves, erasing, scrolling. */
const CURSOR = /\u001b\[[0-9;?]*[A-HJKSTfGhl]/;
const oneLine = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '').replace(/\s+/g, ' ');

describe('wrapText', () => {
  it('breaks at spaces with a hanging indent, cuts a word only when it is wider than the line, and ignores colour codes', () => {
    const line = '    critical-to-oncall → oncall-pagerduty, security-slack (only resource groups prod-aws-eu, prod-clusters)';
    expect(wrapText(line, 60).split('\n')).toEqual(['    critical-to-oncall → oncall-pagerduty, security-slack', '      (only resource groups prod-aws-eu, prod-clusters)']);
    expect(wrapText('short line\n  kept', 80)).toBe('short line\n  kept');
    expect(wrapText(`  ${'x'.repeat(50)} tail`, 30).split('\n')).toEqual([`  ${'x'.repeat(28)}`, `    ${'x'.repeat(22)}`, '    tail']);
    expect(wrapText(`  ${'x'.repeat(50)} t`, 30).split('\n')).toEqual([`  ${'x'.repeat(28)}`, `    ${'x'.repeat(22)} t`]);
    const red = `\u001b[31m${'word '.repeat(20).trim()}\u001b[39m`;
    const wrapped = wrapText(red, 30).split('\n');
    expect(wrapped.every((l) => visibleWidth(l) <= 30)).toBe(true);
    expect(wrapped.map((l) => l.replace(/\u001b\[[0-9;]*m/g, '').trim()).join(' ')).toBe('word '.repeat(20).trim());
  });
});

describe('the status line', () => {
  it('is drawn on a terminal, not on one that says TERM=dumb (it cannot move its cursor)', () => {
    const io = (term: string): Io => {
      const stderr = Object.assign(new PassThrough(), { isTTY: true });
      return { stdout: new PassThrough(), stderr, stdin: new PassThrough(), env: { TERM: term }, cwd: '/' };
    };
    expect(consoleOf(io('xterm-256color')).tty).toBe(true);
    const dumb = io('dumb');
    const text: string[] = [];
    dumb.stderr.on('data', (c: Buffer) => text.push(c.toString('utf8')));
    const out = consoleOf(dumb);
    expect(out.tty).toBe(false);
    out.setStatus('Applying: 1/2 done');
    out.line('a log line');
    expect(text.join('')).toBe('a log line\n');
  });
});

describe('the built CLI in an 80-column terminal and through pipes', () => {
  it('TERM=dumb: the routes wrap to 80 columns with a hanging indent, no word cut, no colour and no cursor code', async () => {
    const screen = await inTerminal(['routes', EXAMPLES], { TERM: 'dumb' });
    expect(screen).not.toMatch(ESC);
    const lines = screen.split('\n');
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(80);
    const at = lines.findIndex((l) => l.startsWith('    critical-to-oncall → oncall-pagerduty, security-slack'));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^ {6}\S/);
    // Unwrapped, the sentences are whole: a word cut in two would read as two.
    expect(oneLine(screen)).toContain('critical-to-oncall → oncall-pagerduty, security-slack (only resource groups prod-aws-eu, prod-clusters)');
    // The grid names each partial channel: B and G reach only part of Cloud/critical in prod.
    expect(lines.find((l) => /^ {2}Cloud /.test(l))).toMatch(/^ {2}Cloud\s+A,B\*,G\*,I\s/);
    expect(screen).toContain('B*: channel B gets only part of the cell’s alerts');
  });

  it('TERM=dumb: validate, its notes wrapped too, with no colour and no cursor code', async () => {
    const screen = await inTerminal(['validate', EXAMPLES, '--no-env'], { TERM: 'dumb' });
    expect(screen).not.toMatch(ESC);
    expect(screen).toMatch(/Valid: \d+ resources in 2 accounts\./);
    expect(Math.max(...screen.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(80);
    expect(oneLine(screen)).toMatch(/Skipped \(--no-env\): not checked \d+ variables that are unset or empty: DATADOG_API_KEY, /);
  });

  it('a colour terminal gets colours, within 80 columns', async () => {
    const screen = await inTerminal(['routes', EXAMPLES], { TERM: 'xterm-256color' });
    expect(screen).toMatch(/\u001b\[1mAccount prod \(configuration\)\u001b\[22m/);
    expect(Math.max(...screen.split('\n').map(visibleWidth))).toBeLessThanOrEqual(80);
  });

  it('FORCE_COLOR colours a pipe (80 columns, no cursor code); NO_COLOR and --no-color win over it', async () => {
    const forced = await piped(['routes', EXAMPLES], { FORCE_COLOR: '1', TERM: 'dumb' });
    expect(forced.stdout).toMatch(/\u001b\[1mAccount prod/);
    expect(forced.stdout + forced.stderr).not.toMatch(CURSOR);
    expect(Math.max(...forced.stdout.split('\n').map(visibleWidth))).toBeLessThanOrEqual(80);
    expect((await piped(['routes', EXAMPLES], { FORCE_COLOR: '1', NO_COLOR: '1' })).stdout).not.toMatch(ESC);
    expect((await piped(['--no-color', 'routes', EXAMPLES], { FORCE_COLOR: '1' })).stdout).not.toMatch(ESC);
    expect((await piped(['routes', EXAMPLES], { TERM: 'xterm-256color' })).stdout).not.toMatch(ESC);
  });

  it('--help | head -1 ends quietly: exit 0, no stack', async () => {
    const { stdout, stderr } = await run('bash', ['-c', `set -o pipefail; ${quote(process.execPath)} ${quote(BIN)} --help | head -1`], { env: env({}) });
    expect(stdout).toBe('Usage: postureops [options] [command]\n');
    expect(stderr).toBe('');
  });
});
