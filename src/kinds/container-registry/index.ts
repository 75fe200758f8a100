// Container registries: integrations for image vulnerability assessment. One integration type,
// data defaults the service fills in (so desired and live both carry them), an ECR role that is a
// plain value (not compared only where a response leaves it out, as seed 000 shows), and no PUT.

import { isObject, type JsonObject } from '../../model/json.js';
import { REGISTRY_INTEGRATION_TYPE, REGISTRY_TYPES } from '../spellings.js';
import { integrationKind } from '../integration.js';
import type { Kind } from '../types.js';
import { registryDataFile, SCHEMA_FILE, schemas } from './schema.js';
import { readRegistryData, REGISTRY_DATA_DEFAULTS, registrySecrets, registryUnreturned } from './tables.js';

// The service also echoes `identifierTag` ([] when the request had none), so it is a default too:
// filled on both sides, it never shows as a change and export leaves it out.
const DATA_DEFAULTS: JsonObject = { ...(REGISTRY_DATA_DEFAULTS as unknown as JsonObject), identifierTag: [] };

export const ContainerRegistry: Kind = integrationKind({
  kind: 'ContainerRegistry',
  order: 60,
  documentKind: 'ContainerRegistry',
  schema: SCHEMA_FILE,
  schemas,
  collection: 'ContainerRegistries',
  secrets: (spec) => registrySecrets(isObject(spec.data) ? spec.data : {}),
  unreturned: (spec) => registryUnreturned(isObject(spec.data) ? spec.data : {}),
  readData: (_type, data) => readRegistryData(data),
  fixedType: REGISTRY_INTEGRATION_TYPE,
  dataDefaults: DATA_DEFAULTS,
  knownTypes: REGISTRY_TYPES,
  dataFile: registryDataFile,
  typePointer: '/data/registryType',
  hasPut: false,
  // Repository, tag and label filters are sets.
  setPointers: () => ['/data/limitByRep', '/data/limitByTag', '/data/limitByLabel'],
});
