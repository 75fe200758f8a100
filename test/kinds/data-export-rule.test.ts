// DataExportRule: a report rule's shape routing the account's data to AwsS3 channels by name. A
// channel of another type is an error at its name, declared (validate) or live (plan); profile
// versions are compared only where the file gives them.

import { describe, expect, it } from 'vitest';
import { kindOf } from '../../src/kinds/index.js';
import { loadConfig } from '../../src/config/load.js';
import { plan } from '../../src/plan/steps/plan.js';
import type { JsonObject } from '../../src/model/json.js';
import { makeRepo } from '../config/helpers.js';
import { desiredState, liveState } from '../engine/plan-fakes.js';
import { desiredOf, doc, fetchCtx } from './helpers.js';

const Kind = kindOf('DataExportRule');
const PATH = '/api/v2/DataExportRules';
const ids: Record<string, string> = { lake: 'S3_1', backup: 'S3_2' };
const ctx = { account: 'prod', orgAccess: false, resolve: (_kind: string, name: string) => ids[name] };
const RECORD: JsonObject = {
  mcGuid: 'MC_1',
  type: 'Dataexport',
  intgGuidList: ['S3_2', 'S3_1'],
  filters: { name: 'to-lake', description: 'all', enabled: 1, profileVersions: ['V1'], createdOrUpdatedBy: 'b@example.com', createdOrUpdatedTime: '1767225600000' },
};

describe('DataExportRule', () => {
  it('reads the record with its channels as ids, its writer and time', async () => {
    const [live] = await Kind.list(fetchCtx({ [PATH]: { data: [RECORD] } }));
    expect(live).toEqual({
      kind: 'DataExportRule',
      account: 'prod',
      name: 'to-lake',
      id: 'MC_1',
      spec: { channels: ['S3_1', 'S3_2'], description: 'all', enabled: true, profileVersions: ['V1'] },
      lastChange: { by: 'b@example.com', at: '2026-01-01T00:00:00.000Z' },
    });
  });

  it('creates with type Dataexport and channel ids; updates filters whole and the channels only when they change', () => {
    const [d] = desiredOf(Kind, doc('DataExportRule', 'to-lake', { channels: ['lake', 'backup'], enabled: false }));
    expect(Kind.createRequest(d, [], ctx).body).toEqual({ type: 'Dataexport', intgGuidList: ['S3_2', 'S3_1'], filters: { name: 'to-lake', description: '', enabled: 0 } });
    expect(Kind.updateRequests('MC_1', d, ['enabled'], ctx)[0]).toMatchObject({ method: 'PATCH', path: `${PATH}/MC_1`, body: { filters: { name: 'to-lake', description: '', enabled: 0 } } });
    expect(Kind.updateRequests('MC_1', d, ['channels'], ctx)[0].body).toEqual({ intgGuidList: ['S3_2', 'S3_1'] });
    expect(Kind.updateRequests('MC_1', d, [], ctx)).toEqual([]);
  });

  it('compares profileVersions only where the file gives them', async () => {
    const [read] = await Kind.list(fetchCtx({ [PATH]: { data: [{ ...RECORD, intgGuidList: ['S3_1'] }] } }));
    // As the live read leaves it: ids mapped to names.
    const live = { ...read, spec: { ...read.spec, channels: ['lake'] } };
    const channel = { kind: 'AlertChannel', account: 'prod', name: 'lake', id: 'S3_1', spec: { type: 'AwsS3', enabled: true, data: {} } };
    const planned = (spec: JsonObject) =>
      plan(desiredState(desiredOf(Kind, doc('DataExportRule', 'to-lake', spec))), liveState([live, channel]), { accounts: ['prod'] }).plan!.changes.map((c) => [c.action, c.changed]);
    expect(planned({ channels: ['lake'], description: 'all' })).toEqual([]);
    expect(planned({ channels: ['lake'], description: 'all', profileVersions: [] })).toEqual([['update', ['profileVersions']]]);
  });

  it('refuses at validate a declared channel of another type, at the line of its name', async () => {
    const dir = await makeRepo({
      'postureops.yaml': 'accounts:\n  - name: prod\n',
      'channels.yaml': 'kind: AlertChannel\nname: hook\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/x\n---\nkind: AlertChannel\nname: lake\nspec:\n  type: AwsS3\n  data:\n    s3CrossAccountCredentials: {roleArn: "arn:aws:iam::1:role/r", externalId: e, bucketArn: "arn:aws:s3:::b"}\n',
      'export.yaml': 'kind: DataExportRule\nname: to-lake\nspec:\n  channels:\n    - lake\n    - hook\n',
    });
    const { diagnostics } = await loadConfig(dir, { env: {}, cwd: dir });
    expect(diagnostics).toEqual([
      expect.objectContaining({ severity: 'error', code: 'reference-not-allowed', file: 'export.yaml', line: 6, field: '/spec/channels/1', message: expect.stringContaining('whose type is Webhook; a DataExportRule takes only AwsS3') }),
    ]);
  });

  it('refuses at plan a live channel of another type', () => {
    const [d] = desiredOf(Kind, doc('DataExportRule', 'to-lake', { channels: ['slack'] }));
    const slack = { kind: 'AlertChannel', account: 'prod', name: 'slack', id: 'SL_1', spec: { type: 'SlackChannel', enabled: true, data: {} } };
    const result = plan(desiredState([d]), liveState([slack]), { accounts: ['prod'] });
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ severity: 'error', code: 'reference-not-allowed', field: '/channels', line: 3, message: 'DataExportRule to-lake refers to AlertChannel slack, whose type is SlackChannel; a DataExportRule takes only AwsS3' }),
    ]);
  });

  it('refuses at plan a live channel of another type at the line of its name, as the loader read it', async () => {
    const dir = await makeRepo({
      'postureops.yaml': 'accounts:\n  - name: prod\n',
      'export.yaml': 'kind: DataExportRule\nname: to-lake\nspec:\n  description: lake\n  channels:\n    - lake\n    - slack\n',
    });
    const { state } = await loadConfig(dir, { env: {}, cwd: dir });
    const live = (name: string, id: string, type: string) => ({ kind: 'AlertChannel', account: 'prod', name, id, spec: { type, enabled: true, data: {} } });
    const result = plan(desiredState(state!.resources), liveState([live('lake', 'S3_1', 'AwsS3'), live('slack', 'SL_1', 'SlackChannel')]), { accounts: ['prod'] });
    expect(result.diagnostics.map((d) => [d.code, d.file, d.line, d.column, d.field])).toEqual([['reference-not-allowed', 'export.yaml', 7, 7, '/channels']]);
  });
});
