// Who last changed a live record, and when, read from the record itself: integrations carry
// createdOrUpdatedBy/Time at the top (an ISO time), alert rules inside filters (epoch ms as a string).

import { describe, expect, it } from 'vitest';
import { AlertChannel } from '../../src/kinds/alert-channel/index.js';
import { AlertRule } from '../../src/kinds/alert-rule/index.js';
import { AlertProfile } from '../../src/kinds/alert-profile/index.js';
import { lastChangeOf } from '../../src/kinds/common.js';
import { fetchCtx, integrationRecord } from './helpers.js';

describe('lastChangeOf', () => {
  it.each([
    ['an ISO time', 'ops@example.com', '2026-11-22T10:15:00.000Z', { by: 'ops@example.com', at: '2026-11-22T10:15:00.000Z' }],
    ['epoch ms as a string', 'ops@example.com', '1763751600000', { by: 'ops@example.com', at: '2025-11-21T19:00:00.000Z' }],
    ['epoch ms as a number', 'ops@example.com', 1763751600000, { by: 'ops@example.com', at: '2025-11-21T19:00:00.000Z' }],
    ['a time that is not one', 'ops@example.com', 'not a timestamp', { by: 'ops@example.com' }],
    ['no user', undefined, '2026-11-22T10:15:00Z', { at: '2026-11-22T10:15:00.000Z' }],
    ['0 (never)', '', 0, undefined],
  ])('%s', (_title, by, time, expected) => {
    expect(lastChangeOf(by, time)).toEqual(expected);
  });
});

describe('kinds put the last change into the live resource', () => {
  it('an alert channel from its top-level members', async () => {
    const record = { ...integrationRecord({ intgGuid: 'PROD_1', name: 'ops', type: 'Webhook', enabled: 1, data: { webhookUrl: 'https://x.example.com' } }), createdOrUpdatedBy: 'second@example.com' };
    const [live] = await AlertChannel.list(fetchCtx({ '/api/v2/AlertChannels': { data: [record] } }));
    expect(live.lastChange).toEqual({ by: 'second@example.com', at: '2026-11-21T19:00:00.000Z' });
  });

  it('an alert rule from its filters', async () => {
    const record = {
      mcGuid: 'rule-1',
      type: 'Event',
      intgGuidList: [],
      filters: { name: 'r', enabled: 1, severity: [1], createdOrUpdatedBy: 'second@example.com', createdOrUpdatedTime: '1763751600000' },
    };
    const [live] = await AlertRule.list(fetchCtx({ '/api/v2/AlertRules': { data: [record] } }));
    expect(live.lastChange).toEqual({ by: 'second@example.com', at: '2025-11-21T19:00:00.000Z' });
  });

  it('a kind whose records say nothing has no last change', async () => {
    const profiles = [{ alertProfileId: 'CUSTOM_A', extends: 'SVC_BASE', fields: [], descriptionKeys: [], alerts: [] }];
    const live = await AlertProfile.list(fetchCtx({ '/api/v2/AlertProfiles': { data: profiles } }));
    expect(live.length).toBeGreaterThan(0);
    for (const r of live) expect(r.lastChange).toBeUndefined();
  });
});
