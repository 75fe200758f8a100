// The JSON Schemas of postureops files, by file name under schemas/. The loader validates with
// these objects; `npm run generate` writes them to schemas/ for editors (a test keeps both equal).
// Each document kind builds its own schemas (Kind.schemas); this file adds what belongs to no kind:
// the shared definitions, the root file postureops.yaml, and the `document.schema.json` dispatch.

import { DOCUMENT_KINDS, KINDS, kindForDocument } from '../kinds/index.js';
import {
  CLOSED_SET_KEYWORD,
  COMMON_SCHEMA,
  DRAFT,
  NOT_BLANK,
  SCHEMA_BASE,
  SELECTOR,
  SPEC_POINTER,
  bool,
  commonRef,
  obj,
  ref,
  type ClosedSet,
  type SchemaObject,
} from '../kinds/schema-parts.js';

import { routingSchema } from './routing-schema.js';

export { COMMON_SCHEMA, SCHEMA_BASE };

/** Document kinds and the schema file each one is validated with, from the registry. */
export const DOCUMENT_SCHEMAS: Readonly<Record<string, string>> = Object.fromEntries(
  DOCUMENT_KINDS.map((k) => [k, kindForDocument(k)!.schema ?? '']),
);

export const ROOT_SCHEMA = 'postureops.schema.json';
export const DOCUMENT_SCHEMA = 'document.schema.json';

/** Kinds `prune` may name: every kind but the state-only ones, which have nothing to delete (those without documents follow their parent when left out). */
export const PRUNABLE_KINDS: readonly string[] = KINDS.filter((k) => !k.lifecycle?.stateOnly).map((k) => k.kind);

export const API_VERSION = 'postureops/v1';

function common(): SchemaObject {
  return {
    $schema: DRAFT,
    $id: SCHEMA_BASE + COMMON_SCHEMA,
    title: 'postureops shared definitions',
    description: 'Definitions shared by the postureops document schemas.',
    $defs: {
      name: {
        type: 'string',
        minLength: 1,
        pattern: NOT_BLANK,
        description: 'Identity of the resource within (account, kind): the name the service shows: one line, not empty, not only spaces.',
        examples: ['ops-slack'],
      },
      accountName: {
        type: 'string',
        minLength: 1,
        pattern: NOT_BLANK,
        description: 'An account declared in postureops.yaml (the value of the Account-Name header).',
        examples: ['prod'],
      },
      account: {
        description:
          'Account(s) this document is applied to: one declared account, a list of them, or "*" for every declared account. Default: defaults.account in postureops.yaml.',
        type: ['string', 'array'],
        minLength: 1,
        pattern: NOT_BLANK,
        items: { $ref: '#/$defs/accountName' },
        minItems: 1,
        uniqueItems: true,
        examples: ['prod', ['prod', 'staging'], '*'],
      },
      previousNames: {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: { type: 'string', minLength: 1, pattern: NOT_BLANK },
        description:
          'Names this resource had before. When the live resource still has one of them and none has `name`, the plan renames it in place: same id, so the rules that route to it keep routing. Kinds whose name is their id (alert profiles, agent access tokens) cannot be renamed.',
        examples: [['old-name']],
      },
      lifecycle: obj('What postureops must not do to this resource.', {
        preventDestroy: bool('Refuse (exit 3) any plan that deletes or replaces this resource; --force does not override it. Deleting the document removes this too: list the resource under `protect` in postureops.yaml to keep prune away from it.', { default: false }),
        ignoreChanges: {
          type: 'array',
          uniqueItems: true,
          items: { type: 'string', pattern: SPEC_POINTER },
          description:
            'JSON pointers into `spec` (e.g. /data/channel, /description) that another team owns: their live value is never compared and an update sends it back unchanged.',
          examples: [['/description']],
        },
      }),
      apiVersion: { const: API_VERSION, description: `Version of the file format; optional, only ${API_VERSION} exists.` },
      enabled: {
        enum: [true, false, 1, 0],
        default: true,
        description: 'Whether the integration is enabled: true/false or 1/0. Default true.',
        examples: [true],
      },
    },
  };
}

/** `, except AlertTemplate, which follows AlertProfile`: kinds with a parent follow it when left out. */
function pruneExceptions(): string {
  const children = KINDS.filter((k) => k.hierarchy?.parentKind !== undefined).map((k) => `${k.kind}, which follows ${k.hierarchy?.parentKind}`);
  const named = KINDS.filter((k) => k.lifecycle?.deleteMeans !== undefined).map((k) => k.kind);
  const onlyNamed = named.length === 0 ? '' : `; \`true\` for every kind leaves out ${named.join(', ')} (${named.length === 1 ? 'its delete is' : 'their deletes are'} not a deletion: name ${named.length === 1 ? 'it' : 'them'} to prune)`;
  return (children.length === 0 ? '' : `, except ${children.join('; ')}`) + onlyNamed;
}

/** Prune a kind that references another, keep the referenced one (its resources may be shared). */
function pruneExample(): Record<string, boolean> {
  const referring = KINDS.find((k) => (k.references ?? []).length > 0);
  if (!referring) return { [DOCUMENT_KINDS[0]]: true };
  return { [referring.kind]: true, [(referring.references ?? [])[0].kind]: false };
}

/** The thresholds one level of `safety` may set. */
function thresholds(description: string, extra: Record<string, SchemaObject> = {}): SchemaObject {
  const percent = (what: string, dflt: number): SchemaObject => ({ type: 'number', minimum: 0, maximum: 100, default: dflt, description: what, examples: [dflt] });
  return obj(description, {
    minResources: {
      type: 'integer',
      minimum: 0,
      default: 10,
      description: 'Below this many live resources of a kind in an account, the per-kind thresholds do not apply (the per-account delete threshold always does).',
      examples: [10],
    },
    updatePercent: percent('Share (0 to 100) of the live resources of a kind in an account that one plan may update or replace without --force.', 30),
    deletePercent: percent(
      'Share (0 to 100) of the live resources that one plan may delete without --force: per kind (from minResources on), and per account whatever the count. A plan that deletes every live resource of an account is refused whatever this says.',
      30,
    ),
    ...extra,
  });
}

/** The label of every closed set the kinds' schemas declare (`<kind> type`, `event category`), sorted. */
export function closedSetLabels(): string[] {
  const labels = new Set<string>();
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    const set = (node as SchemaObject)[CLOSED_SET_KEYWORD] as ClosedSet | undefined;
    if (set !== undefined) labels.add(set.label);
    for (const value of Object.values(node)) walk(value);
  };
  for (const kind of KINDS) walk(kind.documents?.schemas() ?? {});
  return [...labels].sort();
}

function root(): SchemaObject {
  return {
    $schema: DRAFT,
    $id: SCHEMA_BASE + ROOT_SCHEMA,
    title: 'postureops.yaml',
    description: 'Root of a postureops configuration repository: the accounts it manages, defaults, and pruning.',
    type: 'object',
    required: ['accounts'],
    additionalProperties: false,
    properties: {
      apiVersion: commonRef('apiVersion'),
      accounts: {
        type: 'array',
        minItems: 1,
        description: 'Accounts this repository manages.',
        items: obj(
          'One account.',
          {
            name: { ...commonRef('accountName'), description: 'Account name: the value of the Account-Name header (case-insensitive in the service).' },
            orgAccess: bool('Organization-level data: requests carry Org-Access: true instead of Account-Name.', { default: false }),
          },
          ['name'],
        ),
        examples: [[{ name: 'prod' }, { name: 'staging' }]],
      },
      defaults: obj('Defaults for documents.', {
        account: { ...commonRef('accountName'), description: 'Account of documents that name none; required with more than one account.' },
      }),
      prune: {
        description: `Delete live resources that no file declares. true/false for every kind, or per kind: kinds left out are false${pruneExceptions()}.`,
        type: ['boolean', 'object'],
        default: false,
        propertyNames: { enum: [...PRUNABLE_KINDS] },
        additionalProperties: { type: 'boolean' },
        examples: [false, pruneExample()],
      },
      protect: {
        type: 'array',
        uniqueItems: true,
        items: { type: 'string', pattern: SELECTOR },
        description:
          'Live resources that prune never deletes, whatever the documents say: selectors [account/]Kind/name, `*` matching within a part. A protected resource no file declares is listed as unmanaged (protected).',
        examples: [[`prod/${DOCUMENT_KINDS[0]}/oncall-*`, `${DOCUMENT_KINDS[1] ?? DOCUMENT_KINDS[0]}/critical-*`]],
      },
      variables: {
        type: 'array',
        uniqueItems: true,
        items: { type: 'string', pattern: '^(?:[A-Za-z_][A-Za-z0-9_]*\\*?|[A-Za-z_]?[A-Za-z0-9_]*\\*)$' },
        description:
          "The environment variables documents may read with ${env:NAME}: names, or prefixes ending in `*`. A reference to any other is an error. postureops' own settings and the CI's tokens and inputs (SVC_*, POSTUREOPS_*, GITHUB_*, ACTIONS_*, RUNNER_*, INPUT_*) can never be declared, nor a prefix that could cover them.",
        examples: [['SLACK_OPS_URL', 'PAGERDUTY_*']],
      },
      secrets: obj('How secrets written in files are treated.', {
        literals: {
          enum: ['warn', 'error', 'allow'],
          default: 'warn',
          description:
            'A literal value in a secret the service returns in clear (a Slack, Teams or VictorOps URL, a Cisco webhook, a Splunk HEC token): `warn` (default) accepts it with a secret-literal warning, `error` refuses it, `allow` accepts it silently. It is masked in every output either way. A literal in a write-only credential (API keys, passwords, tokens, private keys) is always an error: use ${env:NAME}.',
          examples: ['warn', 'error', 'allow'],
        },
      }),
      safety: thresholds('Safety thresholds: a plan that changes more of what exists is refused (exit 3) without --force. Set here for every kind and account, then per kind, per account, and per account and kind; the most specific setting wins.', {
        kinds: {
          type: 'object',
          description: 'Thresholds per kind.',
          propertyNames: { enum: KINDS.map((k) => k.kind) },
          additionalProperties: thresholds('Thresholds of this kind.'),
        },
        accounts: {
          type: 'object',
          description: 'Thresholds per account (a declared account), and per kind inside it.',
          additionalProperties: thresholds('Thresholds of this account.', {
            kinds: { type: 'object', description: 'Thresholds per kind in this account.', propertyNames: { enum: KINDS.map((k) => k.kind) }, additionalProperties: thresholds('Thresholds of this kind in this account.') },
          }),
        },
      }),
      serviceValues: {
        type: 'object',
        description:
          "Values the service holds that this version of postureops does not know, by what they are (the label that validate's messages give the set: `<kind> type`, `event category`, ...): carried as written with a warning, never taken for a misspelling of a known value they are close to. Export writes the ones it finds in the live service.",
        propertyNames: { enum: closedSetLabels() },
        additionalProperties: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', minLength: 1 } },
        examples: [Object.fromEntries(closedSetLabels().filter((l) => l.endsWith(' type')).slice(0, 1).map((l) => [l, ['NewTypeV2']]))],
      },
      routing: routingSchema(),
      ...Object.assign({}, ...KINDS.map((k) => k.rootSettings ?? {})),
    },
  };
}

function documentDispatch(): SchemaObject {
  const kinds = DOCUMENT_KINDS;
  return {
    $schema: DRAFT,
    $id: SCHEMA_BASE + DOCUMENT_SCHEMA,
    title: 'postureops document',
    description: 'Any postureops resource document; `kind` selects the schema.',
    type: 'object',
    required: ['kind'],
    properties: { kind: { enum: [...kinds], description: 'Kind of resource this document declares.' } },
    allOf: kinds.map((k) => ({
      if: { properties: { kind: { const: k } }, required: ['kind'] },
      then: ref(DOCUMENT_SCHEMAS[k]),
    })),
  };
}

/** Every schema by file name relative to schemas/: the ones above, then each document kind's. */
export function schemaCatalog(): Record<string, SchemaObject> {
  const catalog: Record<string, SchemaObject> = {
    [COMMON_SCHEMA]: common(),
    [ROOT_SCHEMA]: root(),
    [DOCUMENT_SCHEMA]: documentDispatch(),
  };
  for (const kind of KINDS) {
    for (const [file, schema] of Object.entries((kind.documents?.schemas() ?? {}) ?? {})) {
      if (file in catalog) throw new Error(`schema ${file} of ${kind.kind} is already in the catalog`);
      catalog[file] = schema;
    }
  }
  return catalog;
}

let shared: Readonly<Record<string, SchemaObject>> | undefined;

/**
 * The catalog for the readers that never change it (the validators' digest, the value-check walk):
 * built once a process instead of once each, and frozen, so that no reader can change it for another.
 */
export function sharedCatalog(): Readonly<Record<string, SchemaObject>> {
  // A copy is frozen, not the catalog: its parts are the kinds' own objects (their root settings).
  shared ??= deepFreeze(structuredClone(schemaCatalog()));
  return shared;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
