// A loopback fake of the GitHub REST API, as much as the Action uses: issue and pull-request
// comments (paged, with Link headers), labels on an issue, and issues (list, create, update). It
// keeps state and records every request (method, path, authorization header, body).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  url: string;
  authorization?: string;
  body?: unknown;
}

/** GitHub's author of what the workflow's token writes. */
export const ACTIONS_BOT = { login: 'github-actions[bot]', type: 'Bot' };

export interface FakeComment {
  id: number;
  body: string;
  user?: { login: string; type: string };
}

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  state_reason?: string | null;
  user?: { login: string; type: string };
}

export interface FakeGithub {
  url: string;
  requests: Recorded[];
  /** Comments per issue or pull-request number. */
  comments: Map<number, FakeComment[]>;
  labels: Map<number, string[]>;
  issues: FakeIssue[];
  /** Answers `METHOD /path` with a fixed status and body instead. */
  override: Map<string, { status: number; body?: unknown }>;
  /** Writes (POST, PATCH, PUT, DELETE) recorded for a repository path prefix. */
  writes(prefix?: string): Recorded[];
  close(): Promise<void>;
}

const PER_PAGE_MAX = 100;

export async function startFakeGithub(): Promise<FakeGithub> {
  const requests: Recorded[] = [];
  const comments = new Map<number, FakeComment[]>();
  const labels = new Map<number, string[]>();
  const issues: FakeIssue[] = [];
  const override = new Map<string, { status: number; body?: unknown }>();
  let nextComment = 1;
  let nextIssue = 1000;
  let base = '';

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', base);
      const method = req.method ?? '';
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
      requests.push({ method, url: url.pathname + url.search, authorization: req.headers.authorization, body });
      const send = (status: number, payload?: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(payload === undefined ? '' : JSON.stringify(payload));
      };
      const paged = <T>(items: T[]) => {
        const perPage = Math.min(Number(url.searchParams.get('per_page') ?? '30'), PER_PAGE_MAX);
        const page = Number(url.searchParams.get('page') ?? '1');
        const last = Math.max(1, Math.ceil(items.length / perPage));
        const headers: Record<string, string> = {};
        if (page < last) {
          const next = new URL(url.href);
          next.searchParams.set('page', String(page + 1));
          headers.link = `<${next.href}>; rel="next"`;
        }
        return send(200, items.slice((page - 1) * perPage, page * perPage), headers);
      };
      const o = override.get(`${method} ${url.pathname}`);
      if (o) return send(o.status, o.body);

      const p = url.pathname;
      let m: RegExpExecArray | null;
      if ((m = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(p))) {
        const n = Number(m[1]);
        const list = comments.get(n) ?? [];
        if (method === 'GET') return paged(list);
        if (method === 'POST') {
          const c = { id: nextComment++, body: String(body?.body), user: ACTIONS_BOT };
          comments.set(n, [...list, c]);
          return send(201, c);
        }
      }
      if ((m = /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/.exec(p)) && method === 'DELETE') {
        const id = Number(m[1]);
        for (const [n, list] of comments) {
          if (list.some((x) => x.id === id)) {
            comments.set(n, list.filter((x) => x.id !== id));
            return send(204, undefined);
          }
        }
        return send(404, { message: 'Not Found' });
      }
      if ((m = /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/.exec(p)) && method === 'PATCH') {
        const id = Number(m[1]);
        for (const list of comments.values()) {
          const c = list.find((x) => x.id === id);
          if (c) {
            c.body = String(body?.body);
            return send(200, c);
          }
        }
        return send(404, { message: 'Not Found' });
      }
      if ((m = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/labels$/.exec(p))) {
        const n = Number(m[1]);
        const list = labels.get(n) ?? [];
        if (method === 'GET') return paged(list.map((name) => ({ name })));
        if (method === 'POST') {
          const added = [...new Set([...list, ...((body?.labels as string[]) ?? [])])];
          labels.set(n, added);
          return send(200, added.map((name) => ({ name })));
        }
      }
      if ((m = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/labels\/([^/]+)$/.exec(p)) && method === 'DELETE') {
        const n = Number(m[1]);
        const name = decodeURIComponent(m[2]);
        const list = labels.get(n) ?? [];
        if (!list.includes(name)) return send(404, { message: 'Label does not exist' });
        labels.set(n, list.filter((l) => l !== name));
        return send(200, []);
      }
      if (/^\/repos\/[^/]+\/[^/]+\/issues$/.test(p)) {
        if (method === 'GET') {
          const state = url.searchParams.get('state') ?? 'open';
          return paged(issues.filter((i) => state === 'all' || i.state === state));
        }
        if (method === 'POST') {
          const issue: FakeIssue = { number: nextIssue++, title: String(body?.title), body: String(body?.body ?? ''), state: 'open', user: ACTIONS_BOT };
          issues.push(issue);
          return send(201, issue);
        }
      }
      if ((m = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)$/.exec(p)) && method === 'PATCH') {
        const issue = issues.find((i) => i.number === Number(m![1]));
        if (!issue) return send(404, { message: 'Not Found' });
        Object.assign(issue, body);
        return send(200, issue);
      }
      return send(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    comments,
    labels,
    issues,
    override,
    writes: (prefix = '') => requests.filter((r) => r.method !== 'GET' && r.url.startsWith(prefix)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
