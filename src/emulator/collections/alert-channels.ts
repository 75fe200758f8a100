// /api/v2/AlertChannels: the 16 channel types, per-type data checks, 409 on deleting a channel in use.

import { CHANNEL_TYPES, type ChannelType } from '../spellings.js';
import { HttpError } from '../http.js';
import { channelSchema, integrationBaseSchema } from '../request-schemas.js';
import type { Route } from '../router.js';
import { CHANNEL_SENSITIVE, JIRA_SECRET } from '../service-facts.js';
import { check, invalidData } from '../validation.js';
import { integrationRoutes, type IntegrationCollection } from './integrations.js';

const BASE = integrationBaseSchema(CHANNEL_TYPES);

export const alertChannels: IntegrationCollection = {
  path: 'AlertChannels',
  key: 'alertChannels',
  label: 'alert channel',
  types: CHANNEL_TYPES,
  listByType: true,
  put: true,
  test: true,
  schemas: () => CHANNEL_TYPES.map((t) => channelSchema(t)),
  validate(record) {
    check(BASE, record);
    const type = record.type as ChannelType;
    check(channelSchema(type), record);
    if (type === 'Jira') {
      const data = record.data as Record<string, unknown>;
      const secret = JIRA_SECRET[data.jiraType as string];
      if (secret !== undefined && (typeof data[secret] !== 'string' || data[secret] === '')) {
        throw invalidData([`data/${secret}: required for jiraType ${String(data.jiraType)}`]);
      }
    }
  },
  sensitive: (r) => CHANNEL_SENSITIVE[r.type as ChannelType] ?? [],
  // An older EmailUser record answers its recipients as one comma-separated string (api-facts.md).
  responseData(data, record) {
    const props = data.channelProps as Record<string, unknown> | undefined;
    if (!record.older || record.type !== 'EmailUser' || !Array.isArray(props?.recipients)) return data;
    return { ...data, channelProps: { ...props, recipients: props.recipients.join(', ') } };
  },
  beforeDelete(ctx, record) {
    const rule = ctx.scope.alertRules.find((x) => x.intgGuidList.includes(record.intgGuid));
    if (rule !== undefined) {
      throw new HttpError(
        409,
        `Alert channel ${record.name} (${record.intgGuid}) is used by alert rule ${rule.filters.name} (${rule.mcGuid}); remove it from the rule first`,
      );
    }
    const exportRule = (ctx.scope.dataExportRules ?? []).find((x) => x.intgGuidList.includes(record.intgGuid));
    if (exportRule !== undefined) {
      throw new HttpError(
        409,
        `Alert channel ${record.name} (${record.intgGuid}) is used by data export rule ${exportRule.filters.name} (${exportRule.mcGuid}); remove it from the rule first`,
      );
    }
  },
};

export const alertChannelRoutes = (): Route[] => integrationRoutes(alertChannels);
