// The two steps of an interruption: the first signal stops (waits end, no new change), the second
// signal or the end of the grace time aborts the requests in flight.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Interruption } from '../../cmd/interrupt.js';
import type { Io } from '../../cmd/io.js';
import { manualSignals } from '../e2e/harness.js';

function io(signals: Io['signals']): Io & { err: () => string } {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (c: Buffer) => (text += c.toString('utf8')));
  return { stdout: new PassThrough(), stderr, stdin: new PassThrough(), env: {}, cwd: '/', signals, err: () => text };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Interruption', () => {
  it('a pause (waiting for another apply\'s lease) ends at the first signal with exit 130', async () => {
    const signals = manualSignals();
    const interruption = new Interruption(io(signals));
    const pause = interruption.sleep(3_600_000, 'nothing was applied while waiting');
    signals.send('SIGINT');
    await expect(pause).rejects.toMatchObject({ code: 130, message: expect.stringContaining('nothing was applied while waiting') });
    // Once stopped, a new pause does not even start.
    await expect(interruption.sleep(10, 'again')).rejects.toMatchObject({ code: 130 });
    interruption.dispose();
  });

  it('first signal stops, the second aborts; SIGINT exits 130', () => {
    const signals = manualSignals();
    const target = io(signals);
    const interruption = new Interruption(target);
    expect(interruption.exitCode()).toBeUndefined();
    signals.send('SIGINT');
    expect(interruption.stop.aborted).toBe(true);
    expect(interruption.stop.reason).toBe('SIGINT');
    expect(interruption.abort.aborted).toBe(false);
    expect(interruption.exitCode()).toBe(130);
    signals.send('SIGTERM');
    expect(interruption.abort.aborted).toBe(true);
    // The first signal decides the exit code.
    expect(interruption.exitCode()).toBe(130);
    expect(target.err()).toContain('SIGINT received');
    expect(target.err()).toContain('aborting the requests in flight');
    interruption.dispose();
    expect(signals.listening()).toBe(false);
  });

  it('SIGTERM exits 143, and the grace time aborts what is still in flight', () => {
    vi.useFakeTimers();
    const signals = manualSignals();
    const interruption = new Interruption(io(signals), 30_000);
    signals.send('SIGTERM');
    expect(interruption.exitCode()).toBe(143);
    vi.advanceTimersByTime(29_999);
    expect(interruption.abort.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(interruption.abort.aborted).toBe(true);
    interruption.dispose();
  });

  it('race: the work, or an exit error as soon as the stop signal comes', async () => {
    const signals = manualSignals();
    const interruption = new Interruption(io(signals));
    expect(await interruption.race(Promise.resolve(7), 'x')).toBe(7);
    const never = new Promise<number>(() => undefined);
    const raced = interruption.race(never, 'nothing was written');
    signals.send('SIGINT');
    await expect(raced).rejects.toMatchObject({ code: 130, message: 'interrupted by SIGINT: nothing was written' });
    interruption.dispose();
  });
});
