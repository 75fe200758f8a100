// Rate-limit waits on stderr: a status line redrawn in place on a terminal, never inside the log
// lines; in a log that is not a terminal, one line when a wait starts and at most one a minute.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { write } from '../../cmd/io.js';
import { refillRate, StatusConsole, WaitReporter } from '../../cmd/terminal.js';

function capture(tty: boolean) {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
  return { out: new StatusConsole(stream, tty), text: () => text };
}

const T0 = Date.UTC(2026, 2, 1);

/**
 * A wait of `seconds` as the client reports it: every second, once per request waiting (two
 * buckets, three requests), then 0 from each as it ends.
 */
function countdown(reporter: WaitReporter, seconds: number): void {
  for (let s = 0; s < seconds; s++) {
    const info = { now: T0 + s * 1000, limit: 6 };
    reporter.onWait('POST AlertChannels', seconds - s, info);
    reporter.onWait('POST AlertChannels', seconds - s, info);
    reporter.onWait('POST CloudAccounts', Math.max(1, seconds - s - 30), info);
  }
  const end = { now: T0 + seconds * 1000, limit: 6 };
  reporter.onWait('POST AlertChannels', 0, end);
  reporter.onWait('POST AlertChannels', 0, end);
  reporter.onWait('POST CloudAccounts', 0, end);
}

describe('rate-limit waits on stderr', () => {
  it('not a terminal: a wait of 10 minutes logs at most 12 lines, the first at once, each saying what the numbers are', () => {
    const { out, text } = capture(false);
    const reporter = new WaitReporter(out);
    countdown(reporter, 600);
    const lines = text().split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(12);
    expect(lines[0]).toBe('rate limit: waiting: POST AlertChannels refills 1 request every 10 min, next request in 10m 0s');
    expect(text()).not.toContain('\r');
    expect(reporter.waitedSeconds()).toBe(600);
  });

  it('a terminal: one status line redrawn in place; a log line clears it, prints, and draws it again', () => {
    const { out, text } = capture(true);
    const reporter = new WaitReporter(out);
    reporter.onWait('GET AlertRules', 90, { now: T0, limit: 120 });
    out.line('update AlertRule prod/critical…');
    reporter.onWait('GET AlertRules', 89, { now: T0 + 1000, limit: 120 });
    reporter.onWait('GET AlertRules', 0, { now: T0 + 2000, limit: 120 });
    const status = 'rate limit: waiting: GET AlertRules refills 1 request every 30 s, next request in 1m 30s';
    // readline's erase-line and column-1 moves, not hand-written sequences.
    const erase = '\x1b[2K\x1b[1G';
    expect(text()).toBe(
      `${erase}${status}` +
        `${erase}update AlertRule prod/critical…\n${status}` +
        `${erase}${status.replace('1m 30s', '1m 29s')}` +
        erase,
    );
    // Every log line starts on a clean line: never appended to the countdown.
    expect(text().split('\n').slice(1).every((l) => !l.includes('update'))).toBe(true);
  });

  it('says the refill rate in the unit that reads best', () => {
    expect(refillRate(5)).toBe('1 request every 12 min');
    expect(refillRate(120)).toBe('1 request every 30 s');
    expect(refillRate(7)).toBe('1 request every 8.6 min');
  });
});

describe('outside text on stderr and stdout', () => {
  it('a log line and the status line are one line each, every control shown escaped; only our erase-line is raw', () => {
    const { out, text } = capture(true);
    out.setStatus('waiting for \u001b]0;title\u0007 x\ny');
    out.line('update AlertChannel evil\r\n::warning::x\u001b[2J\u202e');
    const raw = text().replaceAll('\u001b[2K\u001b[1G', '');
    expect(raw).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(raw).toContain('update AlertChannel evil\\r\\n::warning::x\\x1b[2J\\u202e\n');
    expect(raw).toContain('waiting for \\x1b]0;title\\x07 x\\ny');
  });

  it('write: lines and our colours stay; anything else escaped; no line starts a workflow command unless it is our own', () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
    write(stream, '\u001b[1mAccount\u001b[22m prod\n  name\u001b[8mhidden\u009b\n  ::set-output name=x::y\nv1 ##[error]x');
    write(stream, '::error file=a.yaml::ours', { commands: true });
    expect(text).toBe('\u001b[1mAccount\u001b[22m prod\n  name\\x1b[8mhidden\\x9b\n  \\x3a:set-output name=x::y\nv1 ##\\x5berror]x\n::error file=a.yaml::ours\n');
  });
});

describe('the log file', () => {
  it('redacts the credentials and every variable whose name says it is a secret, whatever the line holds', async () => {
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { logLine } = await import('../../cmd/io.js');
    const dir = mkdtempSync(join(tmpdir(), 'postureops-logfile-'));
    const env = { POSTUREOPS_LOG_FILE: join(dir, 'log'), SVC_API_SECRET: 'sv-secret-1234', GITHUB_TOKEN: 'ghs_abcdefgh1234', DB_PASSWORD: 'pw-5678-xyz', REGION: 'eu-central-9' };
    logLine({ env, cwd: dir }, 'info', 'info', 'echo: sv-secret-1234 ghs_abcdefgh1234 pw-5678-xyz eu-central-9', () => undefined);
    const text = readFileSync(join(dir, 'log'), 'utf8');
    for (const secret of ['sv-secret-1234', 'ghs_abcdefgh1234', 'pw-5678-xyz']) expect(text).not.toContain(secret);
    expect(text).toContain('eu-central-9');
  });
});
