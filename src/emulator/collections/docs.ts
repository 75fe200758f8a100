// GET /api/v2/docs, answered without login (seed 000): the OpenAPI description of what the emulator serves.

import { openApiDocument } from '../openapi.js';
import type { Route } from '../router.js';

export const docsRoutes = (routes: () => readonly Route[]): Route[] => {
  let cached: { baseUrl: string; doc: unknown } | undefined;
  return [
    {
      pattern: 'docs',
      public: true,
      methods: {
        GET: (ctx) => {
          if (cached?.baseUrl !== ctx.baseUrl) cached = { baseUrl: ctx.baseUrl, doc: openApiDocument(routes(), ctx.baseUrl) };
          return { status: 200, body: cached.doc };
        },
      },
      docs: { GET: { summary: 'This OpenAPI description (no login needed)', response: { kind: 'schema', schema: { type: 'object', additionalProperties: true } } } },
    },
  ];
};
