// A minimal GitHub REST API on 127.0.0.1 for the comment tests: issue comments with pagination,
// recording every request (method, path, authorization header, body).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  url: string;
  authorization?: string;
  body?: unknown;
}

export interface FakeGithub {
  url: string;
  requests: Recorded[];
  /** Comments per page of `GET .../issues/{n}/comments`; page 1 first. */
  pages: { id: number; body: string; url?: string }[][];
  /** Replaces the Link header of a page (by 1-based page number). */
  linkOverride: Map<number, string>;
  /** Answers a path (method + path) with a fixed status and headers instead. */
  override: Map<string, { status: number; headers?: Record<string, string>; body?: unknown }>;
  close(): Promise<void>;
}

export async function startFakeGithub(): Promise<FakeGithub> {
  const state = {
    requests: [] as Recorded[],
    pages: [] as { id: number; body: string; url?: string }[][],
    linkOverride: new Map<number, string>(),
    override: new Map<string, { status: number; headers?: Record<string, string>; body?: unknown }>(),
  };
  let base = '';
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', base);
      state.requests.push({ method: req.method ?? '', url: url.pathname + url.search, authorization: req.headers.authorization, body: raw ? JSON.parse(raw) : undefined });
      const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(body === undefined ? '' : JSON.stringify(body));
      };
      const o = state.override.get(`${req.method} ${url.pathname}`);
      if (o) return send(o.status, o.body, o.headers);
      const list = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname);
      if (list && req.method === 'GET') {
        const page = Number(url.searchParams.get('page') ?? '1');
        const items = state.pages[page - 1] ?? [];
        const headers: Record<string, string> = {};
        const link = state.linkOverride.get(page) ?? (page < state.pages.length ? `<${base}${url.pathname}?per_page=100&page=${page + 1}>; rel="next", <${base}${url.pathname}?per_page=100&page=${state.pages.length}>; rel="last"` : undefined);
        if (link) headers.link = link;
        return send(200, items, headers);
      }
      if (list && req.method === 'POST') return send(201, { id: 9001, body: (JSON.parse(raw) as { body: string }).body });
      const one = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(url.pathname);
      if (one && req.method === 'PATCH') return send(200, { id: Number(one[3]) });
      return send(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    get requests() {
      return state.requests;
    },
    get pages() {
      return state.pages;
    },
    set pages(p) {
      state.pages = p;
    },
    linkOverride: state.linkOverride,
    override: state.override,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
