// /api/v2/AgentAccessTokens, as seed 001 gives it: created with `tokenAlias` and `tokenEnabled`,
// listed and searched (enabled tokens only), read by id (any token), updated in `tokenEnabled` and
// `props` (description, os), never deleted (405). Other request members are ignored, as on the other
// collections.

import { isoTime, notFound, objectBody, type Handler, type RequestContext } from '../http.js';
import { newAgentToken } from '../ids.js';
import type { AgentTokenRecord } from '../model.js';
import { AGENT_TOKEN_CREATE, AGENT_TOKEN_PATCH, SEARCH } from '../request-schemas.js';
import type { Route } from '../router.js';
import { runSearch } from '../search.js';
import { check, invalidData } from '../validation.js';

const TOKEN_VERSION = '0.1';

/** The value the seed gives for `tokenEnabled`; the meaning of others is not shown. */
const ENABLED = '1';

/** Seed 001: the filterable fields of POST /AgentAccessTokens/search. */
const SEARCH_FIELDS = ['accessToken', 'createdTime', 'tokenAlias', 'tokenEnabled', 'version'] as const;

function view(t: AgentTokenRecord): Record<string, unknown> {
  const createdTime = isoTime(t.createdTime);
  return {
    accessToken: t.accessToken,
    createdTime,
    props: { createdTime, description: t.description, ...(t.os !== undefined ? { os: t.os } : {}) },
    tokenAlias: t.tokenAlias,
    tokenEnabled: t.tokenEnabled,
    version: t.version,
  };
}

const enabled = (ctx: RequestContext) => ctx.scope.agentAccessTokens.filter((t) => t.tokenEnabled === ENABLED);

function find(ctx: RequestContext): AgentTokenRecord {
  const t = ctx.scope.agentAccessTokens.find((x) => x.accessToken === ctx.params.id);
  if (t === undefined) throw notFound();
  return t;
}

/** api-facts.md: an agent access token may carry `props.os`. */
export const AGENT_OS = ['linux', 'windows'] as const;

/** `props.os` when given: `linux` or `windows`, else 400. */
function osOf(body: Record<string, unknown>): string | undefined {
  const props = body.props;
  if (props === null || typeof props !== 'object' || Array.isArray(props)) return undefined;
  const os = (props as Record<string, unknown>).os;
  if (os === undefined) return undefined;
  if (typeof os !== 'string' || !(AGENT_OS as readonly string[]).includes(os)) throw invalidData([`props/os: must be one of ${AGENT_OS.join(', ')}`]);
  return os;
}

/** `props.description` when it is a string: how public client libraries give a token's description. */
function descriptionOf(body: Record<string, unknown>): string | undefined {
  const props = body.props;
  if (props === null || typeof props !== 'object' || Array.isArray(props)) return undefined;
  const d = (props as Record<string, unknown>).description;
  return typeof d === 'string' ? d : undefined;
}

const create: Handler = (ctx) => {
  const body = objectBody(ctx);
  check(AGENT_TOKEN_CREATE, body);
  const t: AgentTokenRecord = {
    accessToken: newAgentToken(),
    createdTime: ctx.now,
    // Not in seed 001's create table, but public client libraries set it this way (see README).
    description: descriptionOf(body) ?? '',
    ...(osOf(body) !== undefined ? { os: osOf(body) } : {}),
    tokenAlias: body.tokenAlias as string,
    tokenEnabled: body.tokenEnabled as string,
    version: TOKEN_VERSION,
  };
  ctx.scope.agentAccessTokens.push(t);
  ctx.committed('Create agent access token', `Created agent access token ${t.tokenAlias}`);
  return { status: 201, body: { data: view(t) } };
};

const patch: Handler = (ctx) => {
  const t = find(ctx);
  const body = objectBody(ctx);
  check(AGENT_TOKEN_PATCH, body);
  const description = descriptionOf(body);
  const os = osOf(body);
  if (body.tokenEnabled !== undefined || description !== undefined || os !== undefined) {
    if (body.tokenEnabled !== undefined) t.tokenEnabled = body.tokenEnabled as string;
    if (description !== undefined) t.description = description;
    if (os !== undefined) t.os = os;
    ctx.committed('Update agent access token', `Updated agent access token ${t.tokenAlias}`);
  }
  return { status: 200, body: { data: view(t) } };
};

export const agentAccessTokenRoutes = (): Route[] => [
  {
    pattern: 'AgentAccessTokens',
    methods: {
      GET: (ctx) => ({ status: 200, body: { data: enabled(ctx).map(view) } }),
      POST: create,
    },
    docs: {
      GET: { summary: 'List the enabled agent access tokens', response: { kind: 'list', type: 'AgentAccessTokens' } },
      POST: { summary: 'Create an agent access token', request: AGENT_TOKEN_CREATE, status: 201, response: { kind: 'one', type: 'AgentAccessTokens' } },
    },
  },
  {
    pattern: 'AgentAccessTokens/search',
    methods: { POST: (ctx) => ({ status: 200, body: { data: runSearch(enabled(ctx).map(view), ctx.body, SEARCH_FIELDS) } }) },
    docs: { POST: { summary: `Search the enabled agent access tokens (fields ${SEARCH_FIELDS.join(', ')})`, request: SEARCH, response: { kind: 'list', type: 'AgentAccessTokens' } } },
  },
  {
    pattern: 'AgentAccessTokens/:id',
    methods: { GET: (ctx) => ({ status: 200, body: { data: view(find(ctx)) } }), PATCH: patch },
    docs: {
      GET: { summary: 'Read one agent access token', response: { kind: 'one', type: 'AgentAccessTokens' } },
      PATCH: { summary: 'Change tokenEnabled (and props.description)', request: AGENT_TOKEN_PATCH, response: { kind: 'one', type: 'AgentAccessTokens' } },
    },
  },
];
