// What a plan's estimate shows beside its buckets (issue 31): the apply lease's share of the requests
// and the time faults may add (reserved against --max-duration), in text and Markdown; a saved plan is
// untrusted, so anything but a count or a time there shows nothing.

import { describe, expect, it } from 'vitest';
import { leaseShareText, retryReserveText } from '../../src/render/common.js';
import { renderPlan } from '../../src/render/index.js';
import type { Plan } from '../../src/model/plan.js';
import { fixturePlan } from './fixtures.js';

describe("a plan's estimate", () => {
  it('names the lease\u2019s requests and the retries reserved, in text and Markdown', () => {
    const plan = fixturePlan();
    const text = renderPlan(plan, 'text', { color: false });
    expect(text).toContain('  of these, 4 for the apply lease (taking it, renewing it while the writes wait, releasing it)\nEstimated wait for rate limits: about 20m 34s\n');
    expect(text).toContain('Reserved for retries under faults: up to 7m 0s more (2m 0s for a request safe to repeat, 5m 0s for a create whose outcome stays unknown)');
    const md = renderPlan(plan, 'markdown', { color: false });
    expect(md).toContain('- Of these, 4 for the apply lease');
    expect(md).toContain('- Reserved for retries under faults: up to 7m 0s more (2m 0s for a request safe to repeat, 5m 0s for a create whose outcome stays unknown)');
  });

  it('without a lease or creates: no lease line, the request retries alone', () => {
    const plan: Plan = { ...fixturePlan(), leaseRequests: undefined, retryReserve: { seconds: 120, requestSeconds: 120 } };
    const text = renderPlan(plan, 'text', { color: false });
    expect(text).not.toContain('for the apply lease');
    expect(text).toContain('Reserved for retries under faults: up to 2m 0s more (2m 0s for a request safe to repeat)\n');
    expect(leaseShareText({ leaseRequests: 0 })).toBeUndefined();
    expect(retryReserveText({ retryReserve: { seconds: 0, requestSeconds: 0 } })).toBeUndefined();
  });

  it('from a saved plan, only counts and times are shown', () => {
    for (const leaseRequests of [-1, Number.NaN, Number.POSITIVE_INFINITY, '4; rm -rf', null]) {
      expect(leaseShareText({ leaseRequests } as never)).toBeUndefined();
    }
    expect(retryReserveText({ retryReserve: 'soon' } as never)).toBeUndefined();
    expect(retryReserveText({ retryReserve: null } as never)).toBeUndefined();
    expect(retryReserveText({ retryReserve: { seconds: '60' } } as never)).toBeUndefined();
    expect(retryReserveText({ retryReserve: { seconds: 60, requestSeconds: '\u001b[2J', createSeconds: -5 } } as never)).toBe('up to 1m 0s more');
    expect(leaseShareText({ leaseRequests: 4.4 })).toBe('4 for the apply lease (taking it, renewing it while the writes wait, releasing it)');
  });
});
