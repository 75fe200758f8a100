// /api/v2/CloudAccounts: the 9 cloud account types.

import { CLOUD_ACCOUNT_TYPES, type CloudAccountType } from '../../kinds/spellings.js';
import { cloudAccountSchema, integrationBaseSchema } from '../request-schemas.js';
import type { Route } from '../router.js';
import { CLOUD_ACCOUNT_SENSITIVE } from '../service-facts.js';
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
};

export const cloudAccountRoutes = (): Route[] => integrationRoutes(cloudAccounts);
