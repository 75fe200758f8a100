// Routes under /api/v2: a path pattern with `:name` segments and a handler per method. A path that
// matches some route but not with this method is 405; a path that matches none is 404.

import type { Handler } from './http.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface Route {
  /** Segments after /api/v2, e.g. `AlertChannels/:intgGuid/test`. */
  pattern: string;
  methods: Partial<Record<Method, Handler>>;
}

/** `pattern` is the route that matched, so callers know which segments are identifiers. */
export type RouteMatch =
  | { kind: 'found'; pattern: string; handler: Handler; params: Record<string, string> }
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
  private readonly routes: { pattern: string[]; methods: Route['methods'] }[];

  /** Earlier routes win, so literal paths (`…/search`) go before parameter paths (`…/:id`). */
  constructor(routes: Route[]) {
    this.routes = routes.map((r) => ({ pattern: r.pattern.split('/'), methods: r.methods }));
  }

  match(method: string, segments: string[]): RouteMatch {
    const allowed = new Set<Method>();
    let first: string | undefined;
    for (const r of this.routes) {
      const params = paramsOf(r.pattern, segments);
      if (params === undefined) continue;
      const pattern = r.pattern.join('/');
      const handler = r.methods[method as Method];
      if (handler !== undefined) return { kind: 'found', pattern, handler, params };
      first ??= pattern;
      for (const m of Object.keys(r.methods) as Method[]) allowed.add(m);
    }
    return first !== undefined ? { kind: 'method-not-allowed', pattern: first, allowed: [...allowed] } : { kind: 'not-found' };
  }
}
