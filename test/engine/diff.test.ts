import { describe, expect, it } from 'vitest';
import { diffResource } from '../../src/engine/diff.js';
import { MASK } from '../../src/model/env-markers.js';
import { Channel, desired, live } from './plan-fakes.js';

// The fake Channel: a Pager's /data/apiKey is write-only (never returned, never compared).
const pager = (data: Record<string, string>) => ({ type: 'Pager', data });

describe('diff with --rotate: write-only members', () => {
  it('a write-only member the file does not set is neither marked changed nor sent as its mask', () => {
    const diff = diffResource(Channel, desired('Channel', 'pd', pager({ region: 'eu' })), live('Channel', 'pd', 'C1', pager({ region: 'eu' })), true);
    expect(diff.changed).toEqual([]);
    expect(diff.diff).toEqual([]);
    expect(JSON.stringify(diff)).not.toContain(MASK);
  });

  it('a write-only member the file sets counts as changed and is sent, shown only as its mask', () => {
    const d = desired('Channel', 'pd', pager({ region: 'eu', apiKey: 'k-secret' }));
    const absent = diffResource(Channel, d, live('Channel', 'pd', 'C1', pager({ region: 'eu' })), true);
    expect(absent.changed).toEqual(['data']);
    expect(absent.diff).toEqual([{ op: 'add', path: '/data/apiKey', value: MASK }]);
    const present = diffResource(Channel, d, live('Channel', 'pd', 'C1', pager({ region: 'eu', apiKey: MASK })), true);
    expect(present.diff).toEqual([{ op: 'replace', path: '/data/apiKey', value: MASK }]);
    expect(JSON.stringify([absent, present])).not.toContain('k-secret');
  });

  it('without --rotate a write-only member is never compared', () => {
    const diff = diffResource(Channel, desired('Channel', 'pd', pager({ apiKey: 'new' })), live('Channel', 'pd', 'C1', pager({ apiKey: 'old' })));
    expect(diff.changed).toEqual([]);
    expect(diff.diff).toEqual([]);
  });
});
