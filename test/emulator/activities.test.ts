// Activity and evaluation searches: generated records, the seed's time windows and paging, on the
// emulator's manual clock. One emulator for the file; a test that moves the clock puts it back.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, startEmulator } from '../../src/emulator/index.js';
import { boot, parse, type Harness } from './helpers.js';

const NOW = Date.UTC(2025, 2, 10, 12, 0, 0);
const clock = manualClock(NOW);
let h: Harness;

beforeAll(async () => {
  // 12,000 records per day and dataset: the default 24-hour window holds exactly 12,000.
  h = await boot({ clock, activityRows: 12_000, activitySeed: 7, rateLimit: 10_000 });
  const long = await h.exchange({ keyId: h.emu.keyId, expiryTime: 86_400 });
  h.token = long.body.token;
});
afterAll(() => h.close());

const search = (path: string, body: unknown) => h.call('POST', path, { body });
const changedFiles = (body: unknown) => search('Activities/ChangedFiles/search', body);

async function follow(url: string, token = h.token) {
  return parse(await fetch(url, { headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } }));
}

describe('paging', () => {
  it('pages through 12,000 changed files in 3 pages by following nextPage', async () => {
    const first = await changedFiles({});
    expect(first.status).toBe(200);
    expect(Object.keys(first.body)).toEqual(['paging', 'data']);
    expect(first.body.paging.rows).toBe(5000);
    expect(first.body.paging.totalRows).toBe(12_000);
    const next = first.body.paging.urls.nextPage as string;
    expect(next.startsWith(`${h.emu.url}/api/v2/`)).toBe(true);

    const pages = [first];
    let url: string | null = next;
    while (url !== null) {
      const page = await follow(url);
      expect(page.status).toBe(200);
      pages.push(page);
      url = page.body.paging.urls.nextPage;
    }
    expect(pages.map((p) => p.body.paging.rows)).toEqual([5000, 5000, 2000]);
    expect(pages.map((p) => p.body.data.length)).toEqual([5000, 5000, 2000]);
    const times = pages.flatMap((p) => p.body.data.map((r: any) => r.startTime));
    expect(new Set(times).size).toBe(12_000);
    // The 24 hours before now, oldest first.
    expect(times[0]).toBe('2025-03-09T12:00:00.000Z');
    expect(times[11_999] < '2025-03-10T12:00:00.000Z').toBe(true);
    expect(Object.keys(pages[0].body.data[0]).sort()).toEqual(['endTime', 'filePath', 'filedataHash', 'mid', 'mtime', 'size', 'startTime', 'threatInfo']);
  });

  it('needs the bearer token for nextPage, and the URL expires after 24 hours on the emulator clock', async () => {
    const first = await changedFiles({ returns: ['filePath'] });
    const url = first.body.paging.urls.nextPage as string;
    expect((await parse(await fetch(url))).status).toBe(401);
    try {
      clock.advance(24 * 3_600_000 - 1);
      // A token that outlives the URL, so that the refusal below is the URL's.
      const token = (await h.exchange({ keyId: h.emu.keyId, expiryTime: 86_400 })).body.token;
      const page = await follow(url, token);
      expect(page.status).toBe(200);
      expect(page.body.data[0]).toEqual({ filePath: expect.any(String) });
      clock.advance(1);
      const expired = await follow(url, token);
      expect(expired.status).toBe(404);
      expect(expired.body.message).toMatch(/expired/);
    } finally {
      clock.set(NOW);
    }
  });

  it('answers 404 for an unknown page and for a page of another dataset', async () => {
    const first = await changedFiles({});
    const url = first.body.paging.urls.nextPage as string;
    expect((await follow(url.replace('ChangedFiles', 'DNSs'))).status).toBe(404);
    expect((await follow(`${h.emu.url}/api/v2/Activities/ChangedFiles/pages/00ff.1`)).status).toBe(404);
  });

  it('caps a result set at 500,000 rows without generating them', async () => {
    const big = await startEmulator({ clock, activityRows: 100_000 });
    try {
      const token = (
        await parse(
          await fetch(`${big.url}/api/v2/access/tokens`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-SVC-UAKS': big.secret },
            body: JSON.stringify({ keyId: big.keyId }),
          }),
        )
      ).body.token;
      const r = await parse(
        await fetch(`${big.url}/api/v2/CloudActivities/search`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ timeFilter: { startTime: '2025-03-03T12:00:00Z', endTime: '2025-03-10T12:00:00Z' }, returns: ['eventId'] }),
        }),
      );
      expect(r.status).toBe(200);
      expect(r.body.paging).toMatchObject({ rows: 5000, totalRows: 500_000 });
    } finally {
      await big.close();
    }
  });
});

describe('time windows', () => {
  it('refuses a 9-day range with 400, accepts exactly 7 days', async () => {
    const nine = await changedFiles({ timeFilter: { startTime: '2025-03-01', endTime: '2025-03-10' } });
    expect(nine.status).toBe(400);
    expect(nine.body.message).toMatch(/at most 7 days/);
    const seven = await search('Activities/DNSs/search', { timeFilter: { startTime: '2025-03-03T12', endTime: '2025-03-10T12' }, returns: ['fqdn'] });
    expect(seven.status).toBe(200);
    expect(seven.body.paging.totalRows).toBe(7 * 12_000);
  });

  it('takes the four time formats (UTC) and refuses others', async () => {
    const counts: number[] = [];
    for (const [startTime, endTime] of [
      ['2025-03-10', '2025-03-10T01'],
      ['2025-03-10T00', '2025-03-10T01'],
      ['2025-03-10T00:00:00Z', '2025-03-10T01:00:00Z'],
      ['2025-03-10T00:00:00.000Z', '2025-03-10T01:00:00.000Z'],
    ]) {
      const r = await search('Activities/UserLogins/search', { timeFilter: { startTime, endTime }, returns: ['username'] });
      expect(r.status, startTime).toBe(200);
      counts.push(r.body.paging.totalRows);
    }
    expect(counts).toEqual([500, 500, 500, 500]);
    for (const bad of ['2025-03-10 00:00', '2025-03-10T00:00:00+01:00', '10/03/2025']) {
      const r = await search('Activities/UserLogins/search', { timeFilter: { startTime: bad } });
      expect(r.status, bad).toBe(400);
    }
  });

  it('defaults to the 24 hours before now (before endTime, or from startTime up to now)', async () => {
    const onlyEnd = await search('Activities/DNSs/search', { timeFilter: { endTime: '2025-03-05' }, returns: ['createdTime'] });
    expect(onlyEnd.body.paging.totalRows).toBe(12_000);
    expect(onlyEnd.body.data[0].createdTime).toBe('2025-03-04T00:00:00.000Z');
    const onlyStart = await search('Activities/DNSs/search', { timeFilter: { startTime: '2025-03-10T06' }, returns: ['createdTime'] });
    expect(onlyStart.body.paging.totalRows).toBe(3000);
    const reversed = await search('Activities/DNSs/search', { timeFilter: { startTime: '2025-03-10', endTime: '2025-03-09' } });
    expect(reversed.status).toBe(400);
  });

  it('has no records after now', async () => {
    const r = await search('Activities/DNSs/search', { timeFilter: { startTime: '2025-03-10T11', endTime: '2025-03-11' }, returns: ['createdTime'] });
    expect(r.body.paging.totalRows).toBe(500);
  });
});

describe('compliance evaluations', () => {
  const path = 'Configs/ComplianceEvaluations/search';

  it('requires dataset (one of three) with 400', async () => {
    const none = await search(path, {});
    expect(none.status).toBe(400);
    expect(none.body.message).toBe('Invalid data: #1: [dataset: required]');
    expect((await search(path, undefined)).status).toBe(400);
    expect((await search(path, { dataset: 'OracleCompliance' })).status).toBe(400);
    for (const dataset of ['AwsCompliance', 'AzureCompliance', 'GcpCompliance']) {
      const r = await search(path, { dataset, returns: ['id'] });
      expect(r.status, dataset).toBe(200);
    }
  });

  it('keeps 90 days of history: an older start is 400', async () => {
    const old = await search(path, { dataset: 'AwsCompliance', timeFilter: { startTime: '2024-12-09', endTime: '2024-12-10' } });
    expect(old.status).toBe(400);
    expect(old.body.message).toMatch(/90 days/);
    const inside = await search(path, { dataset: 'AwsCompliance', timeFilter: { startTime: '2024-12-11', endTime: '2024-12-12' }, returns: ['id'] });
    expect(inside.status).toBe(200);
  });

  it('filters by account.AccountId, status and section, and projects returns', async () => {
    const sample = await search(path, { dataset: 'AwsCompliance', timeFilter: { startTime: '2025-03-10T10', endTime: '2025-03-10T11' } });
    const first = sample.body.data[0];
    expect(Object.keys(first)).toEqual(expect.arrayContaining(['account', 'evalType', 'id', 'reason', 'recommendation', 'reportTime', 'resource', 'section', 'severity', 'status']));
    const r = await search(path, {
      dataset: 'AwsCompliance',
      timeFilter: { startTime: '2025-03-10T10', endTime: '2025-03-10T11' },
      filters: [
        { field: 'account.AccountId', expression: 'eq', value: first.account.AccountId },
        { field: 'status', expression: 'eq', value: 'NonCompliant' },
        { field: 'section', expression: 'in', values: ['Logging', 'Storage'] },
      ],
      returns: ['id', 'status', 'section'],
    });
    expect(r.status).toBe(200);
    const all = sample.body.data.filter((x: any) => x.status === 'NonCompliant' && ['Logging', 'Storage'].includes(x.section));
    expect(r.body.paging.totalRows).toBe(all.length);
    expect(all.length).toBeGreaterThan(0);
    expect(r.body.data[0]).toEqual({ id: all[0].id, status: 'NonCompliant', section: all[0].section });
  });
});

describe('generated data', () => {
  it('is the same for the same seed, different for another seed or account', async () => {
    const body = { timeFilter: { startTime: '2025-03-10T10', endTime: '2025-03-10T10:00:10Z' } };
    const a = await changedFiles(body);
    const b = await changedFiles(body);
    expect(a.body.data).toEqual(b.body.data);
    const staging = await h.call('POST', 'Activities/ChangedFiles/search', { body, account: 'staging' });
    expect(staging.body.data).not.toEqual(a.body.data);
    const other = await startEmulator({ clock, activityRows: 12_000, activitySeed: 8 });
    try {
      const token = (
        await parse(
          await fetch(`${other.url}/api/v2/access/tokens`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-SVC-UAKS': other.secret },
            body: JSON.stringify({ keyId: other.keyId }),
          }),
        )
      ).body.token;
      const c = await parse(
        await fetch(`${other.url}/api/v2/Activities/ChangedFiles/search`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
      expect(c.body.data.map((r: any) => r.startTime)).toEqual(a.body.data.map((r: any) => r.startTime));
      expect(c.body.data).not.toEqual(a.body.data);
    } finally {
      await other.close();
    }
  });

  it('filters cloud activities by eventType and eventMap members; GET /CloudActivities is paged', async () => {
    const body = {
      timeFilter: { startTime: '2025-03-10T10', endTime: '2025-03-10T11' },
      filters: [{ field: 'eventType', expression: 'eq', value: 'ConsoleLogin' }],
    };
    const r = await search('CloudActivities/search', body);
    expect(r.status).toBe(200);
    expect(r.body.data.length).toBeGreaterThan(0);
    expect(r.body.data.every((x: any) => x.eventType === 'ConsoleLogin')).toBe(true);
    expect(Object.keys(r.body.data[0].eventMap).sort()).toEqual(['API', 'CT_User', 'Region', 'Resource', 'RulesTriggered', 'SourceIpAddress']);
    const sev = await search('CloudActivities/search', {
      ...body,
      filters: [{ field: 'eventMap.RulesTriggered.PROPS.rule_severity', expression: 'le', value: '1' }],
      returns: ['eventMap'],
    });
    expect(sev.body.data.every((x: any) => x.eventMap.RulesTriggered[0].PROPS.rule_severity === 1)).toBe(true);
    const list = await h.call('GET', 'CloudActivities?startTime=2025-03-10T10&endTime=2025-03-10T11');
    expect(list.status).toBe(200);
    expect(list.body.paging).toEqual({ rows: 500, totalRows: 500, urls: { nextPage: null } });
    expect((await h.call('GET', 'CloudActivities?startTime=2025-03-01&endTime=2025-03-10')).status).toBe(400);
  });
});
