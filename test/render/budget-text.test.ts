// The budget line of a plan says what its number is: how many requests wait, at what refill rate.
import { describe, expect, it } from 'vitest';
import { budgetText } from '../../src/render/common.js';

describe('budget text', () => {
  it('a drained bucket: the wait, the requests that wait and the refill rate', () => {
    expect(budgetText({ bucket: 'POST AlertChannels', needed: 7, limit: 5, remaining: 0, waitSeconds: 5040, short: 7, refillSeconds: 720 })).toBe(
      'needs 7; 0 of 5 left; about 84 min: 7 requests at 1 per 12 min',
    );
  });

  it('a bucket not used yet: taken as full, with the wait if another run has just drained it', () => {
    expect(
      budgetText({ bucket: 'POST AlertChannels', needed: 7, limit: 5, remaining: 5, estimated: true, waitSeconds: 1440, short: 2, refillSeconds: 720, drainedWaitSeconds: 5040 }),
    ).toBe('needs 7; not used yet: a full bucket holds 5; about 24 min: 2 requests at 1 per 12 min; up to 84 min if another run has just drained it');
    expect(budgetText({ bucket: 'POST AlertRules', needed: 2, limit: 120, remaining: 120, estimated: true, waitSeconds: 0, drainedWaitSeconds: 60 })).toBe(
      'needs 2; not used yet: a full bucket holds 120; up to 60 s if another run has just drained it',
    );
  });

  it('enough left: no wait', () => {
    expect(budgetText({ bucket: 'PATCH AlertChannels', needed: 2, limit: 120, remaining: 118, waitSeconds: 0 })).toBe('needs 2; 118 of 120 left');
  });
});
