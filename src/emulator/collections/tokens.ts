// POST /api/v2/access/tokens: an API key and its secret for a bearer token (answered without one).

import type { Tokens } from '../auth.js';
import { TOKEN_EXCHANGE } from '../request-schemas.js';
import type { Route } from '../router.js';

export const tokenRoutes = (tokens: Tokens): Route[] => [
  {
    pattern: 'access/tokens',
    public: true,
    methods: { POST: (ctx) => tokens.exchange(ctx.headers, ctx.body, ctx.now) },
    docs: {
      POST: {
        summary: 'Exchange an API key (keyId in the body, secret in X-SVC-UAKS) for a bearer token',
        request: TOKEN_EXCHANGE,
        status: 201,
        response: { kind: 'schema', schema: { type: 'object', required: ['token', 'expiresAt'], properties: { token: { type: 'string' }, expiresAt: { type: 'string' } } } },
      },
    },
  },
];
