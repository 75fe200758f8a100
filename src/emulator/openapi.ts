// GET /api/v2/docs: an OpenAPI 3 document generated from the router's routes, the request schemas
// their handlers validate with and the record types (record-types.ts). Nothing here is kept by
// hand per endpoint: a route without docs is still listed, with a generic summary.

import { RECORD_TYPES, type Field } from './record-types.js';
import { METHODS, type OperationDoc, type ResponseShape, type Route } from './router.js';
import { API_PREFIX } from './service-facts.js';
import type { Schema } from './validation.js';

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

function recordSchema(fields: Field[]): Json {
  return { type: 'object', properties: Object.fromEntries(fields.map((f) => [f.name, { type: f.type }])), additionalProperties: true };
}

/** The emulator's Schema subset is OpenAPI's; a deep copy keeps the document independent. */
const openApiSchema = (s: Schema): Json => JSON.parse(JSON.stringify(s)) as Json;

function responseBody(shape: ResponseShape | undefined): Json | undefined {
  if (shape === undefined || shape.kind === 'none') return undefined;
  switch (shape.kind) {
    case 'schema':
      return openApiSchema(shape.schema);
    case 'one':
      return { type: 'object', required: ['data'], properties: { data: ref(shape.type) } };
    case 'list':
      return { type: 'object', required: ['data'], properties: { data: { type: 'array', items: ref(shape.type) } } };
    case 'bare-list':
      return { type: 'array', items: ref(shape.type) };
    case 'paged':
      return { type: 'object', required: ['paging', 'data'], properties: { paging: ref('Paging'), data: { type: 'array', items: ref(shape.type) } } };
  }
}

const ERRORS: Record<string, string> = {
  '400': 'Malformed request; do not repeat without changes',
  '401': 'Authentication required or credentials refused',
  '403': 'Understood but refused; authorization will not fix it',
  '404': 'Nothing matches the request URI',
  '405': 'Method not allowed for the resource',
  '409': 'Conflict with the current state of the resource',
  '429': 'Rate limit exceeded',
  '500': 'Internal server error',
  '503': 'Temporarily unable to handle the request',
};

const header = (name: string, description: string, required = false): Json => ({ name, in: 'header', required, description, schema: { type: 'string' } });

function operation(route: Route, method: string, doc: OperationDoc | undefined): Json {
  const params: Json[] = route.pattern
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map((s) => ({ name: s.slice(1), in: 'path', required: true, schema: { type: 'string' } }));
  for (const [name, schema] of Object.entries(doc?.query ?? {})) params.push({ name, in: 'query', required: false, schema: openApiSchema(schema) });
  if (route.public !== true) params.push(header('Account-Name', 'The account to act on (default: the account of the token)'));
  if (route.org === true) params.push(header('Org-Access', '`true` addresses organization-level data (organization admins only)'));
  if (route.pattern === 'access/tokens') params.push(header('X-SVC-UAKS', 'The secret of the API key', true));
  const status = String(doc?.status ?? 200);
  const body = responseBody(doc?.response);
  const responses: Json = {
    [status]: body === undefined ? { description: 'Success' } : { description: 'Success', content: { 'application/json': { schema: body } } },
  };
  for (const [code, description] of Object.entries(ERRORS)) {
    if (route.public === true && code === '401' && route.pattern !== 'access/tokens') continue;
    responses[code] = { description, content: { 'application/json': { schema: ref('Error') } } };
  }
  return {
    operationId: `${method.toLowerCase()}_${route.pattern.replace(/[^A-Za-z0-9]+/g, '_')}`,
    summary: doc?.summary ?? `${method} /${route.pattern}`,
    tags: [route.pattern.split('/')[0]],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(doc?.request !== undefined ? { requestBody: { required: true, content: { 'application/json': { schema: openApiSchema(doc.request) } } } } : {}),
    responses,
    security: route.public === true ? [] : [{ bearer: [] }],
  };
}

/** The path of a route in OpenAPI spelling: `AlertChannels/:intgGuid` → `/api/v2/AlertChannels/{intgGuid}`. */
export const openApiPath = (pattern: string): string => `${API_PREFIX}/${pattern.replace(/:([A-Za-z]+)/g, '{$1}')}`;

export function openApiDocument(routes: readonly Route[], baseUrl: string): Json {
  const paths: Json = {};
  for (const route of routes) {
    const item: Json = {};
    for (const method of METHODS) {
      if (route.methods[method] === undefined) continue;
      item[method.toLowerCase()] = operation(route, method, route.docs?.[method]);
    }
    paths[openApiPath(route.pattern)] = item;
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'Security Posture Service API (emulator)',
      version: '2.0',
      description: 'Generated by the emulator from the routes it serves and the request schemas it validates with.',
    },
    servers: [{ url: baseUrl }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
        Paging: {
          type: 'object',
          required: ['rows', 'totalRows', 'urls'],
          properties: {
            rows: { type: 'integer' },
            totalRows: { type: 'integer' },
            urls: { type: 'object', properties: { nextPage: { type: 'string', nullable: true, description: 'A full URL; GET it with the bearer token; valid 24 hours' } } },
          },
        },
        ...Object.fromEntries(Object.entries(RECORD_TYPES).map(([name, fields]) => [name, recordSchema(fields)])),
      },
    },
  };
}
