// The one interface every resource kind implements. Nothing outside src/kinds switches on a kind's
// name: everything kind-specific (identity, API paths, schemas, secrets, offline checks, normalising,
// request bodies, references, write-only fields, set-like lists) lives behind this interface in the
// kind's folder, src/kinds/<kind>/index.ts, registered by `npm run generate` (registry.generated.ts).

import type { ApiRequest } from '../api/types.js';
import type { Diagnostic } from '../model/diagnostics.js';

import type { Json, JsonObject } from '../model/json.js';
import type { ValueNames } from '../model/plan.js';
import type { DesiredResource, LiveResource, ResourceDocument } from '../model/resource.js';
import type { RoutingChannel, RoutingConsumer, RoutingDimensions, RoutingRule } from '../model/routing.js';
import type { SchemaObject } from './schema-parts.js';

export type { DesiredResource, Json, JsonObject, LiveResource, ResourceDocument, SchemaObject };

/** A member of `spec` that names other resources of the same account. */
export interface Reference {
  kind: string;
  /**
   * JSON pointer to a string or an array of strings, valid both in the canonical spec and in the
   * file's `spec` (config checks the names a file gives; the engine maps live ids to names).
   */
  pointer: string;
  /**
   * Only resources whose spec holds one of `values` at `member` may be named (report rules route to
   * EmailUser channels only); config checks declared targets, plan checks live ones.
   */
  only?: { member: string; values: readonly string[] };
}

/** A secret member of a spec as it appears in a file. */
export interface SecretMember {
  /** Spec-relative JSON pointer, e.g. `/data/slackUrl`. */
  pointer: string;
  /** The service never returns it (compared never); otherwise it comes back in clear (compared, never shown). */
  writeOnly: boolean;
}

/** Where a document-relative pointer (`/spec/severity/1`) is in its file, for diagnostics. */
export type Locate = (pointer: string) => Pick<Diagnostic, 'file' | 'line' | 'column' | 'field'>;

/**
 * Settings of the root file that kinds own (Kind.rootSettings), by name, as the file gives them (a
 * setting left out is absent: the kind applies its default).
 */
export type KindSettings = Readonly<JsonObject>;

export interface FetchContext {
  account: string;
  orgAccess: boolean;
  /** The root file's kind settings; absent where there is no root file (export). */
  settings?: KindSettings;
  /** GET memoised per account and path, `{data}` unwrapped. Kinds that share a list share the call. */
  get(path: string): Promise<unknown>;
}

export interface RequestContext {
  account: string;
  orgAccess: boolean;
  /** Live id of the resource of `kind` named `name` in this account, including ones created in this run. */
  resolve(kind: string, name: string): string;
}

export interface UpdateOptions {
  /** The live resource has another name (a `previousNames` rename): the requests change it to `desired.name`. */
  rename?: boolean;
}

/** A document as export writes it: `spec` in file form, secrets still present (export replaces them). */
export interface ExportedDocument {
  kind: string;
  name: string;
  spec: JsonObject;
  /** What export must tell about this document (a member left out, and why). */
  notes?: Diagnostic[];
}

/**
 * A resource's part in routing maps (src/model/routing.ts computes them, src/kinds/routing.ts reads
 * resources through this hook): a destination of alerts, a rule that sends alerts to destinations by
 * name, or a consumer that sends something else (scheduled reports) to destinations: it routes no
 * alert, but a channel it uses is not idle. Read from the canonical spec, desired or live (references
 * already names); a filter left out or empty is returned as an empty list, which matches every value.
 */
export type RoutingPart =
  | { role: 'channel'; channel: RoutingChannel }
  | { role: 'rule'; rule: RoutingRule }
  | { role: 'consumer'; consumer: RoutingConsumer };

export interface RoutingHook {
  /** The part every resource of the kind plays (`read` returns it): a map needs its channels and rules read. */
  readonly role: RoutingPart['role'];
  /** Rule kinds: the event categories and severities their filters range over (a map's rows and columns). */
  dimensions?(): RoutingDimensions;
  read(name: string, spec: JsonObject): RoutingPart;
}

export interface Kind {
  /** Kind name used in plans and output, e.g. `AlertChannel`. */
  readonly kind: string;
  /**
   * Place in the registry (`KINDS` is sorted by it): the tie-break of plan order and the order of
   * every listing. Unique; leave gaps so a new kind can go between two others.
   */
  readonly order: number;
  /** The document `kind:` this kind reads; null for kinds produced by another kind's documents. */
  readonly documentKind: string | null;
  /** For a kind without documents: how a file declares it (the hint when a document names it). */
  readonly declaredIn?: string;
  /**
   * Top-level settings of postureops.yaml this kind owns, by name, with their JSON Schemas (the root
   * schema includes them; their values reach the kind as KindSettings).
   */
  readonly rootSettings?: Readonly<Record<string, SchemaObject>>;
  /** Schema file name under schemas/ for document kinds, e.g. `alert-channel.schema.json`. */
  readonly schema: string | null;
  /**
   * JSON Schemas this kind owns, by file name under schemas/: its document schema (the file named
   * by `schema`) and any it references (per-type `data` schemas). Document kinds only.
   */
  schemas?(): Record<string, SchemaObject>;
  /** Owning kind: its resources are this kind's parents (AlertTemplate → AlertProfile). */
  readonly parentKind?: string;
  /** Creating this kind's resource also creates its children in one call; deleting it deletes them. */
  readonly ownsChildren?: boolean;
  /**
   * The service provides resources of this kind in every account (default resource groups), which
   * files name without declaring: validate warns of an undeclared name only when it looks like a
   * misspelling of a declared one (plan still refuses a name that is neither declared nor live).
   */
  readonly serviceDefaults?: boolean;
  /** Members naming other resources; the engine orders by them and maps live ids to names. */
  readonly references: readonly Reference[];
  /**
   * Other spec members that name something (a base profile, a child's name), as pointers with `*`
   * for any list index: like references, never read from the environment.
   */
  readonly identifiers?: readonly string[];
  /** Top-level spec members no endpoint can change: a change to one plans a replace. */
  readonly replaceOn: readonly string[];
  /**
   * API collection of the list call that reads this kind, e.g. `AlertChannels` (templates are read
   * with their profiles: `AlertProfiles`). Its rate-limit bucket follows from src/api/buckets.ts.
   */
  readonly collection: string;
  /**
   * `POST <collection>/search` with no filters and no `returns` answers the same records as the list
   * `GET <collection>`. The two are separate functionalities of the service, each with its own
   * rate-limit budget, so a read may take either (alert profiles have no search).
   */
  readonly searchable?: boolean;

  /** JSON pointers of arrays in this spec compared as sets (the service reorders them). */
  setPointers(spec: JsonObject): string[];
  /**
   * Objects of the spec in which a file declares only the members it names (an integration's `data`):
   * the engine compares just those, and an update carries the live members the file leaves out,
   * because the service replaces such an object whole. A member set to null in the file removes it.
   * `live` is the live spec (equal to `desired` for a create). Default: none, the spec is complete.
   */
  openMembers?(desired: JsonObject, live: JsonObject): string[];
  /**
   * Members a file spells by name and the spec holds as the service's codes (severities): plans show
   * the names. Default: none.
   */
  valueNames?(): ValueNames[];
  /** Write-only secret pointers in this spec: never compared, never shown, sent only when needed. */
  writeOnly(spec: JsonObject): string[];
  /**
   * Pointers of members that are no secret but that the service accepts and never returns (a
   * role-based ECR registry's `crossAccountCredentials`): never compared (the live side has nothing
   * to compare), shown as written, sent with their object, exported as `${env:...}` placeholders.
   */
  unreturned?(spec: JsonObject): string[];
  /** Secret pointers the service returns in clear: compared, never shown. */
  sensitive(spec: JsonObject): string[];
  /**
   * Every secret member of a spec as it appears in a file (a superset of writeOnly and sensitive):
   * a member the spec does not use, like a Jira Server password on Jira Cloud, is still a secret in
   * a file. Config refuses a literal value at each of them.
   */
  secretMembers(spec: JsonObject): SecretMember[];

  /**
   * Offline checks of one document that a schema cannot express (ids, names given twice, ...).
   * `doc` is the whole document after `${env:...}` substitution and schema validation (which may have
   * failed: check shapes); pointers are document-relative (`/name`, `/spec/...`).
   */
  checkDocument?(doc: JsonObject, at: Locate, settings?: KindSettings): Diagnostic[];

  /** Document → desired resources (a profile yields itself and its templates), with problems. */
  fromDocument(doc: ResourceDocument): { resources: DesiredResource[]; diagnostics: Diagnostic[] };
  /** Live resources of one account, normalised. Uses ctx.get (shared, memoised list calls only). */
  list(ctx: FetchContext): Promise<LiveResource[]>;
  /** Problems that need live state (template placeholders against the parent's descriptionKeys). */
  check?(desired: DesiredResource, live: readonly LiveResource[], settings?: KindSettings): Diagnostic[];

  /** Request creating `desired` (secrets resolved); `children` are included when ownsChildren. */
  createRequest(desired: DesiredResource, children: DesiredResource[], ctx: RequestContext): ApiRequest;
  /** Identifier of the created resource from the create response body. */
  createdId(body: unknown, desired: DesiredResource): string;
  /**
   * Requests bringing live `id` to `desired`; `changed` lists the changed top-level members. With
   * `rename` (renamable kinds only) the requests also give the resource `desired.name`.
   */
  updateRequests(id: string, desired: DesiredResource, changed: string[], ctx: RequestContext, options?: UpdateOptions): ApiRequest[];
  /** The service can change the name in place (updateRequests with `rename`): `previousNames` keeps the id. */
  readonly renamable?: boolean;
  /** Why a kind that is not renamable cannot be (its name is its id): the diagnostic for `previousNames`. */
  readonly renameRefusal?: string;
  deleteRequest(id: string, ctx: RequestContext): ApiRequest;
  /** Request testing a resource (alert channels), when the service has one. */
  testRequest?(id: string, ctx: RequestContext): ApiRequest;

  /**
   * The service's id is a credential: `list` gives a stand-in `id` (safe to show and to save in a
   * plan) and the real one as `serviceId`; requests are built with the real one, found afresh.
   */
  readonly secretIds?: boolean;
  /** A credential the service issues in a create response (a token's value): handed to the user once. */
  issuedCredential?(body: unknown): string | undefined;
  /** What the plan says on a create of this kind about the credential it issues: where it goes, how to read it later. */
  readonly issuedNote?: string;
  /** The service does not list resources in this desired state (disabled tokens): absence is no reason to create. */
  unlisted?(desired: DesiredResource): boolean;
  /** What a delete does when it is not a deletion, for the plan to say (`disabled: tokens cannot be deleted`). */
  readonly deleteMeans?: string;

  /** The kind takes part in routing maps (alert channels and alert rules); see RoutingHook. */
  readonly routing?: RoutingHook;


  /** Live → file form (defaults left out, references already names); null to skip (predefined). */
  toDocument(live: LiveResource, children: readonly LiveResource[]): ExportedDocument | null;
}
