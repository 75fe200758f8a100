// /api/v2/ContainerRegistries: type ContVulnCfg, per-registryType data, no PUT (405), DELETE 204.

import { REGISTRY_INTEGRATION_TYPE, REGISTRY_TYPES, type RegistryType } from '../spellings.js';
import { REGISTRY_BASE, registrySchema } from '../request-schemas.js';
import type { Route } from '../router.js';
import { DOCKERHUB_DOMAIN, ECR_CREDENTIALS, REGISTRY_RESPONSE_DEFAULTS, registrySensitive } from '../service-facts.js';
import { newServerToken } from '../ids.js';
import { check, invalidData } from '../validation.js';
import { integrationRoutes, type IntegrationCollection } from './integrations.js';

/** Registries that are scanners run by the customer, which report with a service-issued token. */
const SCANNER_TYPES: readonly RegistryType[] = ['INLINE_SCANNER', 'PROXY_SCANNER'];

function present(data: Record<string, unknown>, dotted: string): boolean {
  let v: unknown = data;
  for (const p of dotted.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return typeof v === 'string' && v !== '';
}

/**
 * Seed 000: "The response `data` replaces `crossAccountCredentials` by `accessKeyCredentials`
 * (`accessKeyId` string, `secretAccessKey` string, shown masked) and echoes registryType,
 * registryDomain, limitByTag, limitByLabel, limitByRep, limitNumImg, and identifierTag". A
 * role-based registry has no access key, so both members come back masked as "" (the masking the
 * documents name for `secretAccessKey`). Members the request left out get the service's defaults.
 */
export function registryResponseData(data: Record<string, unknown>, older = false): Record<string, unknown> {
  const out: Record<string, unknown> = { ...data };
  if ('crossAccountCredentials' in out) {
    delete out.crossAccountCredentials;
    out.accessKeyCredentials = { accessKeyId: '', secretAccessKey: '' };
  }
  for (const [k, v] of Object.entries(REGISTRY_RESPONSE_DEFAULTS)) if (!(k in out)) out[k] = structuredClone(v);
  // api-facts.md: Docker Hub answers with its domain; an older inline scanner with limitNumScan as a string.
  if (out.registryType === 'DOCKERHUB' && out.registryDomain === undefined) out.registryDomain = DOCKERHUB_DOMAIN;
  if (older && out.registryType === 'INLINE_SCANNER' && typeof out.limitNumScan === 'number') out.limitNumScan = String(out.limitNumScan);
  return out;
}

export const containerRegistries: IntegrationCollection = {
  path: 'ContainerRegistries',
  key: 'containerRegistries',
  label: 'container registry',
  types: [REGISTRY_INTEGRATION_TYPE],
  listByType: false,
  put: false,
  test: false,
  schemas: () => REGISTRY_TYPES.map((t) => registrySchema(t)),
  knownType: (record) =>
    record.type === REGISTRY_INTEGRATION_TYPE && (REGISTRY_TYPES as readonly unknown[]).includes((record.data as Record<string, unknown> | undefined)?.registryType),
  validate(record) {
    check(REGISTRY_BASE, record);
    const data = record.data as Record<string, unknown>;
    check(registrySchema(data.registryType as RegistryType), record);
    if (data.registryType === 'AWS_ECR') {
      const needed = ECR_CREDENTIALS[data.awsAuthType as keyof typeof ECR_CREDENTIALS];
      const missing = needed.filter((p) => !present(data, p));
      if (missing.length > 0) {
        throw invalidData(missing.map((p) => `data/${p.replace('.', '/')}: required for awsAuthType ${String(data.awsAuthType)}`));
      }
    }
  },
  sensitive: (r) => registrySensitive(r.data),
  // api-facts.md: "some registries carry a top-level serverToken": the scanners that report to the service.
  issueServerToken: (r, ctx) =>
    SCANNER_TYPES.includes(r.data.registryType as RegistryType) ? { serverToken: newServerToken(), uri: `${ctx.baseUrl}/api/v2/scanner` } : undefined,
  responseData: (data, record) => registryResponseData(data, record.older === true),
};

export const containerRegistryRoutes = (): Route[] => integrationRoutes(containerRegistries);
