// The progress of a long phase on stderr (issue 24): on a terminal one status line redrawn in place
// with readline's cursor calls (done/total, failures, elapsed, time left), beside a rate-limit wait;
// off a terminal one line at the start and at most one every 30 s of the given (virtual) clock.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Io } from '../../cmd/io.js';
import { phaseProgress } from '../../cmd/pipeline.js';
import { consoleOf, LeaseCountdown, Progress, PROGRESS_INTERVAL_MS, StatusConsole, WaitReporter, wordsWithin } from '../../cmd/terminal.js';

const ERASE = '\x1b[2K\x1b[1G';
const T0 = Date.UTC(2026, 2, 1);

function capture(tty: boolean, columns?: number) {
  const stream = new PassThrough() as PassThrough & { columns?: number };
  if (columns !== undefined) stream.columns = columns;
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
  return { out: new StatusConsole(stream, tty), text: () => text };
}

function clock() {
  let now = T0;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('the status line of a phase on a terminal', () => {
  it('redraws in place with the count, the failures, the elapsed and the remaining time', () => {
    const { out, text } = capture(true);
    const c = clock();
    const p = new Progress(out, 'Applying', 4, c.now, 'change');
    c.advance(10_000);
    p.step();
    c.advance(10_000);
    p.step(false);
    p.end();
    expect(text()).toBe(
      `${ERASE}Applying: 0/4 done, 0s elapsed` +
        `${ERASE}Applying: 1/4 done, 10s elapsed, about 30s left` +
        `${ERASE}Applying: 2/4 done, 1 failed, 20s elapsed, about 20s left` +
        ERASE,
    );
    // Never a line break: the count is one line, redrawn.
    expect(text()).not.toContain('\n');
  });

  it('a log line goes above the count, which is drawn again below it; a wait shows beside it', () => {
    const { out, text } = capture(true);
    const c = clock();
    const p = new Progress(out, 'Reading live state of prod, staging', 2, c.now, 'account');
    const waits = new WaitReporter(out);
    waits.onWait('GET AlertRules', 30, { now: c.now(), limit: 120 });
    out.line('note: something');
    p.step();
    waits.onWait('GET AlertRules', 0, { now: c.now(), limit: 120 });
    const both = 'Reading live state of prod, staging: 0/2 done, 0s elapsed · rate limit: waiting: GET AlertRules refills 1 request every 30 s, next request in 30s';
    expect(text()).toBe(
      `${ERASE}Reading live state of prod, staging: 0/2 done, 0s elapsed` +
        `${ERASE}${both}` +
        `${ERASE}note: something\n${both}` +
        `${ERASE}Reading live state of prod, staging: 1/2 done, 0s elapsed, about 0s left · rate limit: waiting: GET AlertRules refills 1 request every 30 s, next request in 30s` +
        `${ERASE}Reading live state of prod, staging: 1/2 done, 0s elapsed, about 0s left`,
    );
  });

  it('outside text in a phase name is one escaped line', () => {
    const { out, text } = capture(true);
    new Progress(out, 'Reading \x1b]0;t\x07 evil\n', 1, clock().now).end();
    expect(text().replaceAll(ERASE, '')).toBe('Reading \\x1b]0;t\\x07 evil\\n: 0/1 done, 0s elapsed');
  });
});

describe('off a terminal', () => {
  it('one line when the phase starts, then at most one progress line every 30 s of the clock', () => {
    const { out, text } = capture(false);
    const c = clock();
    const p = new Progress(out, 'Applying', 100, c.now, 'change');
    // 100 steps, one every 1.5 s of virtual time: 150 s in all.
    for (let i = 0; i < 100; i++) {
      c.advance(1500);
      p.step(i % 10 !== 0);
    }
    p.end();
    const lines = text().split('\n').filter((l) => l !== '');
    expect(lines[0]).toBe('Applying: 100 changes');
    expect(lines.slice(1)).toEqual([
      'Applying: 20/100 done, 2 failed, 30s elapsed, about 2m 0s left',
      'Applying: 40/100 done, 4 failed, 1m 0s elapsed, about 1m 30s left',
      'Applying: 60/100 done, 6 failed, 1m 30s elapsed, about 1m 0s left',
      'Applying: 80/100 done, 8 failed, 2m 0s elapsed, about 30s left',
    ]);
    expect(text()).not.toContain('\x1b');
    expect(PROGRESS_INTERVAL_MS).toBe(30_000);
  });

  it('a phase shorter than 30 s logs its one line only', () => {
    const { out, text } = capture(false);
    const c = clock();
    const p = new Progress(out, 'Reading live state of prod', 1, c.now, 'account');
    c.advance(29_000);
    p.step();
    p.end();
    expect(text()).toBe('Reading live state of prod: 1 account\n');
  });
});

describe('a narrow terminal', () => {
  it('shortens the status line to its width by its parts, never cutting a number, so that it can be erased in place', () => {
    const { out, text } = capture(true, 30);
    const c = clock();
    const p = new Progress(out, 'Reading live state of prod, staging, dev', 3, c.now, 'account', undefined, null);
    c.advance(4000);
    p.step();
    const draws = text().split(ERASE).filter((d) => d !== '');
    expect(draws).toEqual(['0/3, 0s', '1/3, 4s, ~8s left']);
    expect(draws.every((d) => d.length < 30)).toBe(true);
  });

  it('beside a rate-limit wait at 120 columns: the wait shortens first, and its countdown stays whole', () => {
    const { out, text } = capture(true, 120);
    const c = clock();
    const waits = new WaitReporter(out);
    const p = new Progress(out, 'Applying', 300, c.now, 'change', undefined, null);
    waits.onTick = () => p.tick();
    for (let i = 0; i < 80; i++) p.step();
    c.advance(60_000);
    waits.onWait('POST AlertChannels', 47, { now: c.now(), limit: 120 });
    const last = text().split(ERASE).filter((d) => d !== '').at(-1)!;
    expect(last.length).toBeLessThan(120);
    expect(last).toBe('Applying: 80/300 done, 1m 0s elapsed, about 2m 45s left · rate limit: POST AlertChannels: next in 47s');
  });
});

describe('a line that tells the truth during waits (issue 31)', () => {
  it('refreshes each second of a wait, with elapsed time and the time left by the budget model, waits included', () => {
    const { out, text } = capture(true);
    const c = clock();
    const waits = new WaitReporter(out);
    // The budget model: 400 s left at the start, counting down with the clock.
    const start = c.now();
    waits.setEstimate((now) => 400 - (now - start) / 1000);
    const p = new Progress(out, 'Applying', 300, c.now, 'change', (now) => waits.left(now), null);
    waits.onTick = () => p.tick();
    for (let i = 0; i < 81; i++) p.step();
    const lines: string[] = [];
    for (let s = 47; s > 0; s--) {
      waits.onWait('POST AlertChannels', s, { now: c.now(), limit: 120 });
      lines.push(text().split(ERASE).filter((d) => d !== '').at(-1)!);
      c.advance(1000);
    }
    // Every second the elapsed time grows, the time left falls, and the countdown falls: never the same line twice.
    expect(new Set(lines).size).toBe(lines.length);
    expect(lines[0]).toContain('81/300 done, 0s elapsed, about 6m 40s left');
    expect(lines[0]).toContain('next request in 47s');
    expect(lines[46]).toContain('81/300 done, 46s elapsed, about 5m 54s left');
    expect(lines[46]).toContain('next request in 1s');
  });

  it('with no wait foreseen by the pre-flight, a wait under way still holds the time left up: never less than the wait', () => {
    const { out, text } = capture(true);
    const c = clock();
    const waits = new WaitReporter(out);
    const p = new Progress(out, 'Applying', 10, c.now, 'change', (now) => waits.left(now), null);
    waits.onTick = () => p.tick();
    for (let i = 0; i < 5; i++) {
      c.advance(1000);
      p.step();
    }
    // The pace alone says 5 s; the bucket says the next request leaves in 9m 31s.
    waits.onWait('POST AlertChannels', 571, { now: c.now(), limit: 6 });
    expect(text().split(ERASE).filter((d) => d !== '').at(-1)).toContain('5/10 done, 5s elapsed, about 9m 31s left');
    waits.onWait('POST AlertChannels', 0, { now: c.now(), limit: 6 });
    expect(waits.left(c.now())).toBeUndefined();
  });

  it('off a terminal, a line at most every 30 s of the clock, also while nothing finishes', () => {
    const { out, text } = capture(false);
    const c = clock();
    const p = new Progress(out, 'Applying', 10, c.now, 'change', () => 600, null);
    for (let s = 0; s < 95; s++) {
      c.advance(1000);
      p.tick();
    }
    expect(text().split('\n').filter((l) => l !== '')).toEqual([
      'Applying: 10 changes',
      'Applying: 0/10 done, 30s elapsed, about 10m 0s left',
      'Applying: 0/10 done, 1m 0s elapsed, about 10m 0s left',
      'Applying: 0/10 done, 1m 30s elapsed, about 10m 0s left',
    ]);
  });
});

describe('the status line never shows a number cut', () => {
  it('past its parts, it drops whole words, never a piece of one', () => {
    expect(wordsWithin('Applying: 120/2000 done', 12)).toBe('Applying:…');
    expect(wordsWithin('Applying: 120/2000 done', 19)).toBe('Applying: 120/2000…');
    expect(wordsWithin('120/2000', 6)).toBe('…');
    expect(wordsWithin('a 12', 1)).toBe('…');
    const { out, text } = capture(true, 12);
    out.setStatus('waiting 1234567s');
    expect(text()).toBe(`${ERASE}waiting…`);
  });
});

describe('off a terminal, one line at most every 30 s for a phase and its waits (issue 31)', () => {
  function io(tty: boolean) {
    const stream = new PassThrough() as PassThrough & { isTTY?: boolean };
    stream.isTTY = tty;
    let text = '';
    stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
    return { io: { stdout: stream, stderr: stream, stdin: new PassThrough(), env: {}, cwd: '/' } as Io, text: () => text };
  }

  /** An apply phase of 10 changes on a virtual clock, with the run's wait reporter. */
  function applying(tty: boolean) {
    const { io: sink, text } = io(tty);
    const c = clock();
    const waits = new WaitReporter(consoleOf(sink));
    consoleOf(sink).waits = waits;
    const p = phaseProgress(sink, 'Applying', 10, c.now, 'change')!;
    return { text, lines: () => text().split('\n').filter((l) => l !== ''), c, waits, p };
  }

  it('a wait during a phase rides on its progress lines (each naming it), with no line of its own', () => {
    const { text, c, waits, p } = applying(false);
    for (let s = 120; s > 0; s--) {
      c.advance(1000);
      waits.onWait('POST AlertChannels', s, { now: c.now(), limit: 60 });
    }
    p.end();
    const wait = (left: string) => `rate limit: waiting: POST AlertChannels refills 1 request every 1 min, next request in ${left}`;
    // The phase's first line, then one line every 30 s at most, each saying the wait and what it is;
    // with no estimate from the pre-flight, the time left is at least the wait.
    expect(text().split('\n').filter((l) => l !== '')).toEqual([
      'Applying: 10 changes',
      `Applying: 0/10 done, 30s elapsed, about 1m 31s left · ${wait('1m 31s')}`,
      `Applying: 0/10 done, 1m 0s elapsed, about 1m 1s left · ${wait('1m 1s')}`,
      `Applying: 0/10 done, 1m 30s elapsed, about 31s left · ${wait('31s')}`,
      `Applying: 0/10 done, 2m 0s elapsed, about 1s left · ${wait('1s')}`,
    ]);
    // Once the phase is over, the wait logs its own line again, and no ended progress is drawn.
    waits.onWait('POST AlertChannels', 90, { now: c.now() + 60_000, limit: 60 });
    expect(text().split('\n').filter((l) => l !== '').at(-1)).toBe(wait('1m 30s'));
  });

  it('a wait starting 30 s or more after the last line is said at once; sooner, with the next line due', () => {
    const { lines, c, waits, p } = applying(false);
    // 40 s in, nothing said since the phase's first line: the wait's first second has its line.
    c.advance(40_000);
    expect(lines()).toHaveLength(1);
    waits.onWait('POST AlertChannels', 50, { now: c.now(), limit: 60 });
    expect(lines()).toHaveLength(2);
    expect(lines()[1]).toBe('Applying: 0/10 done, 40s elapsed, about 50s left · rate limit: waiting: POST AlertChannels refills 1 request every 1 min, next request in 50s');
    // The wait ends 10 s later; another starts at once: 10 s after the last line, it waits its turn.
    c.advance(10_000);
    waits.onWait('POST AlertChannels', 0, { now: c.now(), limit: 60 });
    waits.onWait('POST AlertRules', 40, { now: c.now(), limit: 60 });
    expect(lines()).toHaveLength(2);
    for (let s = 39; s > 0; s--) {
      c.advance(1000);
      waits.onWait('POST AlertRules', s, { now: c.now(), limit: 60 });
    }
    p.end();
    expect(lines().slice(2)).toEqual(['Applying: 0/10 done, 1m 10s elapsed, about 20s left · rate limit: waiting: POST AlertRules refills 1 request every 1 min, next request in 20s']);
  });

  it('on a terminal the ended phase is not drawn again by a later wait', () => {
    const { text, c, waits, p } = applying(true);
    p.end();
    const before = text();
    waits.onWait('POST AlertChannels', 30, { now: c.now(), limit: 60 });
    expect(text().slice(before.length)).not.toContain('Applying');
  });
});

describe('the wait for the apply lease', () => {
  it('held: the reason once, then a countdown of the whole wait allowed, cleared when a pause ends', () => {
    const { out, text } = capture(true, 200);
    const said: string[] = [];
    const c = clock();
    const countdown = new LeaseCountdown(out, 600, c.now, (l) => said.push(l));
    countdown.onWait({ why: 'held', holder: 'bob', secondsLeft: 30, waitLeftSeconds: 600 });
    countdown.onWait({ why: 'held', holder: 'bob', secondsLeft: 29, waitLeftSeconds: 599 });
    countdown.onWait({ why: 'held', holder: 'bob', secondsLeft: 0, waitLeftSeconds: 570 });
    countdown.onWait({ why: 'held', holder: 'bob', secondsLeft: 30, waitLeftSeconds: 570 });
    expect(said).toEqual(['another apply holds the lease (bob): waiting up to 10m 0s']);
    expect(text().split(ERASE).filter((d) => d !== '')).toEqual([
      'waiting for the apply lease: up to 10m 0s left, next look in 30s',
      'waiting for the apply lease: up to 9m 59s left, next look in 29s',
      'waiting for the apply lease: up to 9m 30s left, next look in 30s',
    ]);
    // The last draw was erased by the 0 before the next: nothing stays standing when the wait ends.
    expect(text()).toContain(`9m 59s left, next look in 29s${ERASE}${ERASE}waiting`);
  });

  it('narrow: shorter forms, the numbers whole', () => {
    const { out, text } = capture(true, 32);
    const countdown = new LeaseCountdown(out, 600, () => 0, () => undefined);
    countdown.onWait({ why: 'held', holder: 'bob', secondsLeft: 30, waitLeftSeconds: 600 });
    countdown.onWait({ why: 'unknown', secondsLeft: 151 });
    const narrow = capture(true, 16);
    new LeaseCountdown(narrow.out, 600, () => 0, () => undefined).onWait({ why: 'held', holder: 'bob', secondsLeft: 30, waitLeftSeconds: 600 });
    expect(text().split(ERASE).filter((d) => d !== '')).toEqual(['apply lease: up to 10m 0s left', 'apply lease in 2m 31s']);
    expect(narrow.text()).toBe(`${ERASE}lease: 10m 0s`);
  });

  it('off a terminal: the reason once, then a line at most every 30 s of its clock', () => {
    const { out, text } = capture(false);
    const said: string[] = [];
    const c = clock();
    const countdown = new LeaseCountdown(out, 0, c.now, (l) => said.push(l));
    for (let s = 151; s >= 0; s--) {
      countdown.onWait({ why: 'unknown', secondsLeft: s });
      c.advance(1000);
    }
    expect(said).toHaveLength(1);
    expect(text().split('\n').filter((l) => l !== '')).toEqual([
      'waiting for the apply lease: taken in 2m 31s',
      'waiting for the apply lease: taken in 2m 1s',
      'waiting for the apply lease: taken in 1m 31s',
      'waiting for the apply lease: taken in 1m 1s',
      'waiting for the apply lease: taken in 31s',
      'waiting for the apply lease: taken in 1s',
    ]);
  });
});
