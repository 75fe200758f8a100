// Routes under /api/v2: a path pattern with `:name` segments and a handler per method. A path that
// matches some route but not with this method is 405; a path that matches none is 404.

import type { Handler } from './http.js';
import type { Schema } from './validation.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
export const METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** How a success body is built around a record type of record-types.ts. */
export type ResponseShape =
  | { kind: 'one' | 'list' | 'paged' | 'bare-list'; type: string }
  | { kind: 'schema'; schema: Schema }
  | { kind: 'none' };

/** What GET /api/v2/docs says about one operation; kept beside the handler it describes. */
export interface OperationDoc {
  summary: string;
  /** The schema the handler validates the body with (or a description of the accepted bodies). */
  request?: Schema;
  /** Query parameters. */
  query?: Record<string, Schema>;
  /** Success status; default 200. */
  status?: number;
  response?: ResponseShape;
}

export interface Route {
  /** Segments after /api/v2, e.g. `AlertChannels/:intgGuid/test`. */
  pattern: string;
  methods: Partial<Record<Method, Handler>>;
  docs?: Partial<Record<Method, OperationDoc>>;
  /** Answered without a bearer token (and without an account). */
  public?: boolean;
  /** Takes Org-Access (OG in the seed); Account-Name applies everywhere. */
  org?: boolean;
}

/** `pattern` is the route that matched, so callers know which segments are identifiers. */
export type RouteMatch =
  | { kind: 'found'; pattern: string; route: Route; handler: Handler; params: Record<string, string> }
  | { kind: 'method-not-allowed'; pattern: string; allowed: Method[] }
  | { kind: 'not-found' };

function paramsOf(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i].startsWith(':')) params[pattern[i].slice(1)] = segments[i];
    else if (pattern[i] !== segments[i]) return undefined;
  }
  return params;
}

export class Router {
  private readonly routes: { pattern: string[]; route: Route }[];

  /** Earlier routes win, so literal paths (`…/search`) go before parameter paths (`…/:id`). */
  constructor(readonly all: readonly Route[]) {
    this.routes = all.map((r) => ({ pattern: r.pattern.split('/'), route: r }));
  }

  match(method: string, segments: string[]): RouteMatch {
    const allowed = new Set<Method>();
    let first: string | undefined;
    for (const r of this.routes) {
      const params = paramsOf(r.pattern, segments);
      if (params === undefined) continue;
      const pattern = r.pattern.join('/');
      const handler = r.route.methods[method as Method];
      if (handler !== undefined) return { kind: 'found', pattern, route: r.route, handler, params };
      first ??= pattern;
      for (const m of Object.keys(r.route.methods) as Method[]) allowed.add(m);
    }
    return first !== undefined ? { kind: 'method-not-allowed', pattern: first, allowed: [...allowed] } : { kind: 'not-found' };
  }
}
