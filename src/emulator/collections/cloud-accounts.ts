// /api/v2/CloudAccounts: the 19 cloud account types of the public client (api-facts.md); the agentless
// scanner types get a service-issued top-level `serverToken`.

import { CLOUD_ACCOUNT_TYPES, type CloudAccountType } from '../spellings.js';
import { cloudAccountSchema, integrationBaseSchema } from '../request-schemas.js';
import type { Route } from '../router.js';
import { newServerToken } from '../ids.js';
import { CLOUD_ACCOUNT_SENSITIVE, SERVER_TOKEN_TYPES } from '../service-facts.js';
import { check } from '../validation.js';
import { integrationRoutes, type IntegrationCollection } from './integrations.js';

const BASE = integrationBaseSchema(CLOUD_ACCOUNT_TYPES);

export const cloudAccounts: IntegrationCollection = {
  path: 'CloudAccounts',
  key: 'cloudAccounts',
  label: 'cloud account',
  types: CLOUD_ACCOUNT_TYPES,
  listByType: true,
  put: true,
  test: false,
  schemas: () => CLOUD_ACCOUNT_TYPES.map((t) => cloudAccountSchema(t)),
  validate(record) {
    check(BASE, record);
    check(cloudAccountSchema(record.type as CloudAccountType), record);
  },
  sensitive: (r) => CLOUD_ACCOUNT_SENSITIVE[r.type as CloudAccountType] ?? [],
  issueServerToken: (r, ctx) =>
    SERVER_TOKEN_TYPES.includes(r.type as CloudAccountType) ? { serverToken: newServerToken(), uri: `${ctx.baseUrl}/api/v2/agentless` } : undefined,
};

export const cloudAccountRoutes = (): Route[] => integrationRoutes(cloudAccounts);
