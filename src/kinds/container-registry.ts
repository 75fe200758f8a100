// Container registries: integrations for image vulnerability assessment. One integration type,
// data defaults the service fills in (so desired and live both carry them), and no PUT.

import { isObject } from './common.js';
import { REGISTRY_DATA_DEFAULTS, REGISTRY_INTEGRATION_TYPE, registrySecrets } from './data.js';
import { integrationKind } from './integration.js';
import type { JsonObject, Kind } from './types.js';

export const ContainerRegistry: Kind = integrationKind({
  kind: 'ContainerRegistry',
  documentKind: 'ContainerRegistry',
  schema: 'container-registry.schema.json',
  collection: 'ContainerRegistries',
  secrets: (spec) => registrySecrets(isObject(spec.data) ? spec.data : {}),
  fixedType: REGISTRY_INTEGRATION_TYPE,
  // A readonly constant: integrationKind copies it before use.
  dataDefaults: REGISTRY_DATA_DEFAULTS as unknown as JsonObject,
  hasPut: false,
  // Repository, tag and label filters are sets.
  setPointers: () => ['/data/limitByRep', '/data/limitByTag', '/data/limitByLabel'],
});
