import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boot, slack, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await boot({ rateLimit: 1000 });
  await h.call('POST', 'AlertChannels', { body: slack('ops-slack') });
  await h.call('POST', 'AlertChannels', { body: slack('Dev-Slack') });
  await h.call('POST', 'AlertChannels', { body: { name: 'hook', type: 'Webhook', enabled: 0, data: { webhookUrl: 'https://x.example/h' } } });
});
afterAll(() => h.close());

async function search(body: unknown) {
  return h.call('POST', 'AlertChannels/search', { body });
}
async function names(filters: unknown[]) {
  const r = await search({ filters });
  expect(r.status).toBe(200);
  return r.body.data.map((c: any) => c.name).sort();
}

describe('POST .../search', () => {
  it('applies each expression', async () => {
    expect(await names([{ field: 'name', expression: 'eq', value: 'hook' }])).toEqual(['hook']);
    expect(await names([{ field: 'name', expression: 'ne', value: 'hook' }])).toEqual(['Dev-Slack', 'ops-slack']);
    expect(await names([{ field: 'name', expression: 'in', values: ['hook', 'ops-slack'] }])).toEqual(['hook', 'ops-slack']);
    expect(await names([{ field: 'name', expression: 'not_in', values: ['hook'] }])).toEqual(['Dev-Slack', 'ops-slack']);
    expect(await names([{ field: 'name', expression: 'like', value: '%slack' }])).toEqual(['ops-slack']);
    expect(await names([{ field: 'name', expression: 'not_like', value: '%slack' }])).toEqual(['Dev-Slack', 'hook']);
    expect(await names([{ field: 'name', expression: 'ilike', value: '%SLACK' }])).toEqual(['Dev-Slack', 'ops-slack']);
    expect(await names([{ field: 'name', expression: 'not_ilike', value: '%SLACK' }])).toEqual(['hook']);
    expect(await names([{ field: 'name', expression: 'rlike', value: '^[A-Z]' }])).toEqual(['Dev-Slack']);
    expect(await names([{ field: 'name', expression: 'not_rlike', value: '^[A-Z]' }])).toEqual(['hook', 'ops-slack']);
    expect(await names([{ field: 'enabled', expression: 'gt', value: '0' }])).toEqual(['Dev-Slack', 'ops-slack']);
    expect(await names([{ field: 'enabled', expression: 'lt', value: '1' }])).toEqual(['hook']);
    expect(await names([{ field: 'enabled', expression: 'ge', value: '0' }])).toHaveLength(3);
    expect(await names([{ field: 'enabled', expression: 'le', value: '0' }])).toEqual(['hook']);
    expect(await names([{ field: 'name', expression: 'between', values: ['a', 'i'] }])).toEqual(['hook']);
  });

  it('follows dotted paths and combines filters with AND', async () => {
    expect(await names([{ field: 'data.webhookUrl', expression: 'like', value: 'https://%' }])).toEqual(['hook']);
    expect(
      await names([
        { field: 'type', expression: 'eq', value: 'SlackChannel' },
        { field: 'name', expression: 'like', value: 'ops%' },
      ]),
    ).toEqual(['ops-slack']);
  });

  it('keeps only the `returns` fields', async () => {
    const r = await search({ filters: [{ field: 'name', expression: 'eq', value: 'hook' }], returns: ['name', 'intgGuid'] });
    expect(r.body.data).toHaveLength(1);
    expect(Object.keys(r.body.data[0]).sort()).toEqual(['intgGuid', 'name']);
  });

  it('refuses expr, value/values mismatches, bad ranges and bad regular expressions', async () => {
    const cases: [unknown, string][] = [
      [{ field: 'name', expression: 'expr', value: 'x' }, 'expr is reserved'],
      [{ field: 'name', expression: 'eq', values: ['x'] }, 'filters/0/value: required for eq'],
      [{ field: 'name', expression: 'in', value: 'x' }, 'filters/0/value: not allowed for in'],
      [{ field: 'name', expression: 'between', values: ['b', 'a'] }, 'upper bound must be greater'],
      [{ field: 'name', expression: 'between', values: ['a'] }, 'two items'],
      [{ field: 'name', expression: 'rlike', value: '(' }, 'not a valid regular expression'],
      [{ field: 'name', expression: 'contains', value: 'x' }, 'filters/0/expression: must be one of'],
      [{ expression: 'eq', value: 'x' }, 'filters/0/field: required'],
    ];
    for (const [filter, text] of cases) {
      const r = await search({ filters: [filter] });
      expect(r.status, JSON.stringify(filter)).toBe(400);
      expect(r.body.message).toContain(text);
    }
  });

  it('returns everything without filters or body', async () => {
    expect((await search(undefined)).body.data).toHaveLength(3);
    expect((await search({})).body.data).toHaveLength(3);
  });
});
