// The drift issue's memory of delivery (src/github/delivery.ts): a hidden block in the issue body,
// which anyone who can edit the issue can change. Read back, it is bounded before it is decoded,
// each entry is checked, and anything else is ignored; it can never end the comment it sits in.

import { describe, expect, it } from 'vitest';
import { DELIVERY_MAX_CELLS, deliveryBlock, followDelivery, readDeliveryBlock, type DeliveryRecord } from '../../src/github/delivery.js';

const AT = '2026-11-20T14:00:00.000Z';
const rec = (cell: string, state: DeliveryRecord['state'] = 'silent'): DeliveryRecord => ({ account: 'prod', cell, state, since: AT });
const raw = (value: unknown) => `<!-- postureops:delivery ${Buffer.from(JSON.stringify(value)).toString('base64url')} -->`;

describe('the delivery block', () => {
  it('round-trips, and holds nothing that could end the HTML comment or be read as Markdown', () => {
    const records = [rec('Cloud/critical'), rec('Cloud/high', 'degraded'), { ...rec('x'), account: '--> <img src=x> @octocat' }];
    const block = deliveryBlock(records);
    expect(block).toMatch(/^<!-- postureops:delivery [A-Za-z0-9_-]+ -->$/);
    expect(readDeliveryBlock(`text\n\n${block}\n\n---\nfooter`)).toEqual(records);
    expect(deliveryBlock([])).toBe('');
  });

  it('ignores what is not ours, malformed, oversized or of the wrong shape, and keeps the valid entries only', () => {
    for (const body of [null, '', 'no block', '<!-- postureops:delivery !!! -->', '<!-- postureops:delivery e30 -->', raw({ v: 2, cells: [] }), raw({ v: 1, cells: 'x' }), `<!-- postureops:delivery ${'A'.repeat(50_000)} -->`]) {
      expect(readDeliveryBlock(body)).toEqual([]);
    }
    const mixed = raw({
      v: 1,
      cells: [
        { a: 'prod', c: 'Cloud/critical', s: 'silent', t: AT },
        { a: 'prod', c: 'Cloud/critical', s: 'silent', t: AT },
        { a: 'prod', c: 'Cloud/high', s: 'loud', t: AT },
        { a: 'prod', c: 'Cloud/low', s: 'silent', t: 'not a time' },
        { a: 'x'.repeat(500), c: 'Cloud/low', s: 'silent', t: AT },
        { a: 7, c: 'Cloud/low', s: 'silent', t: AT },
        'junk',
        null,
      ],
    });
    expect(readDeliveryBlock(mixed)).toEqual([rec('Cloud/critical')]);
    const many = raw({ v: 1, cells: Array.from({ length: 300 }, (_, i) => ({ a: 'p', c: `C/${i}`, s: 'silent', t: AT })) });
    expect(readDeliveryBlock(many)).toHaveLength(DELIVERY_MAX_CELLS);
  });

  it('follows the cells: the first report is kept, new ones get this check, the rest healed', () => {
    const later = '2026-11-21T14:00:00.000Z';
    const { records, healed } = followDelivery([rec('Cloud/critical'), rec('Cloud/high')], [{ account: 'prod', cell: 'Cloud/critical', state: 'degraded' }, { account: 'prod', cell: 'App/low', state: 'silent' }], later);
    expect(records).toEqual([{ ...rec('Cloud/critical', 'degraded') }, { ...rec('App/low'), since: later }]);
    expect(healed).toEqual([rec('Cloud/high')]);
  });
});
