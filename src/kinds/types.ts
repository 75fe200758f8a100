// The contract every resource kind implements: a small core (what it is, how its documents become
// resources, how it is listed and written) and named capabilities it opts into, each read by one
// engine step (the table in the Kind interface's comment). Nothing outside src/kinds switches on a
// kind's name: everything kind-specific lives in the kind's folder, src/kinds/<kind>/index.ts,
// registered by `npm run generate` (registry.generated.ts).

import type { ApiRequest } from '../api/types.js';
import type { Diagnostic } from '../model/diagnostics.js';

import type { Json, JsonObject } from '../model/json.js';
import type { ValueNames } from '../model/plan.js';
import type { DesiredResource, LiveResource, ResourceDocument } from '../model/resource.js';
import type { ChannelHealth, RoutingChannel, RoutingConsumer, RoutingDimensions, RoutingRule } from '../model/routing.js';
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
  /**
   * Kinds listed per parent (Kind.perParent) only: the live parents whose records this read lists,
   * one request each (the parents a repository declares records for; every parent in an export).
   */
  parents?: readonly { id: string; name: string }[];
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
export type RoutingPart = { role: 'channel'; channel: RoutingChannel } | { role: 'rule'; rule: RoutingRule } | { role: 'consumer'; consumer: RoutingConsumer };

export interface RoutingHook {
  /** The part every resource of the kind plays (`read` returns it): a map needs its channels and rules read. */
  readonly role: RoutingPart['role'];
  /** Rule kinds: the event categories and severities their filters range over (a map's rows and columns). */
  dimensions?(): RoutingDimensions;
  read(name: string, spec: JsonObject): RoutingPart;
  /** Channel kinds: a live resource's health from its `info` (the service's state as list() kept it). */
  health?(info: JsonObject | undefined): ChannelHealth;
}

/** What an offline check may know besides the document: the time it is judged at. */
export interface CheckContext {
  /** Epoch ms of the load (the run's clock; tests inject theirs): an expiry before it has passed. */
  now: number;
}

/** Capability `documents`: the kind's files (config's loader: schema validation, then `check`). */
export interface DocumentsCapability {
  /**
   * JSON Schemas this kind owns, by file name under schemas/: its document schema (the file named
   * by `schema`) and any it references (per-type `data` schemas).
   */
  schemas(): Record<string, SchemaObject>;
  /**
   * Offline checks of one document that a schema cannot express (ids, names given twice, ...).
   * `doc` is the whole document after `${env:...}` substitution and schema validation (which may have
   * failed: check shapes); pointers are document-relative (`/name`, `/spec/...`).
   */
  check?(doc: JsonObject, at: Locate, settings?: KindSettings, context?: CheckContext): Diagnostic[];
}

/** Capability `hierarchy`: resources that live inside a parent's (plan's fold step; order; the loader). */
export interface HierarchyCapability {
  /** (On a child.) Owning kind: its resources are this kind's parents (AlertTemplate → AlertProfile). */
  readonly parentKind?: string;
  /** (On the parent.) Creating a resource also creates its children in one call; deleting it deletes them. */
  readonly ownsChildren?: boolean;
  /** For a kind without documents: how a file declares it (the hint when a document names it). */
  readonly declaredIn?: string;
}

/** Capability `compare`: how the diff reads a spec (plan's diff). */
export interface CompareCapability {
  /** Top-level spec members no endpoint can change: a change to one plans a replace. */
  readonly replaceOn?: readonly string[];
  /**
   * Members whose change, between these two specs, no endpoint can make (a vulnerability exception's
   * expiry removed: a PATCH can set one, not clear it): like replaceOn, for this change only.
   */
  replaceWhen?(desired: JsonObject, live: JsonObject): string[];
  /** JSON pointers of arrays in this spec compared as sets (the service reorders them). */
  setPointers?(spec: JsonObject): string[];
  /**
   * Objects of the spec in which a file declares only the members it names (an integration's `data`):
   * the engine compares just those, and an update carries the live members the file leaves out,
   * because the service replaces such an object whole. A member set to null in the file removes it.
   * `live` is the live spec (equal to `desired` for a create).
   */
  openMembers?(desired: JsonObject, live: JsonObject): string[];
  /** Members a file spells by name and the spec holds as the service's codes (severities): plans show the names. */
  valueNames?(): ValueNames[];
}

/**
 * Capability `secrets`: secret members (config refuses literals; the diff never shows them; export
 * writes placeholders). Each member defaults to none.
 */
export interface SecretsCapability {
  /** Write-only secret pointers in this spec: never compared, never shown, sent only when needed. */
  writeOnly?(spec: JsonObject): string[];
  /** Secret pointers the service returns in clear: compared, never shown. */
  sensitive?(spec: JsonObject): string[];
  /**
   * Every secret member of a spec as it appears in a file (a superset of writeOnly and sensitive):
   * a member the spec does not use, like a Jira Server password on Jira Cloud, is still a secret in
   * a file. Config refuses a literal value at each of them.
   */
  secretMembers?(spec: JsonObject): SecretMember[];
  /**
   * secretMembers, writeOnly and sensitive of one spec together, from one reading of it (the loader
   * asks all three of every document): the same lists as each asked alone.
   */
  facts?(spec: JsonObject): { members: SecretMember[]; writeOnly: string[]; sensitive: string[] };
  /**
   * Pointers of members that are no secret but that the service accepts and never returns (a
   * role-based ECR registry's `crossAccountCredentials`): never compared (the live side has nothing
   * to compare), shown as written, sent with their object, exported as `${env:...}` placeholders.
   */
  unreturned?(spec: JsonObject): string[];
}

/** Capability `credentials`: ids and values that are credentials (the apply executor). */
export interface CredentialsCapability {
  /**
   * The service's id is a credential: `list` gives a stand-in `id` (safe to show and to save in a
   * plan) and the real one as `serviceId`; requests are built with the real one, found afresh.
   */
  readonly secretIds?: boolean;
  /** A credential the service issues in a create response (a token's value): handed to the user once. */
  issuedCredential?(body: unknown): string | undefined;
  /** What the plan says on a create of this kind about the credential it issues: where it goes, how to read it later. */
  readonly issuedNote?: string;
}

/** Capability `rename`: `previousNames` (plan's rename step; the loader refuses it where `inPlace` is false). */
export interface RenameCapability {
  /** The service can change the name in place (updateRequests with `rename`): `previousNames` keeps the id. */
  readonly inPlace: boolean;
  /** Why it cannot (its name is its id): the diagnostic for `previousNames`. */
  readonly refusal?: string;
}

/** Capability `lifecycle`: how the service keeps the kind's resources alive beyond plain CRUD. */
export interface LifecycleCapability {
  /**
   * (The loader.) The service provides resources of this kind in every account (default resource
   * groups), which files name without declaring: validate warns of an undeclared name only when it
   * looks like a misspelling of a declared one (plan still refuses a name neither declared nor live).
   */
  readonly serviceDefaults?: boolean;
  /** (Plan's decide step.) The service does not list resources in this desired state (disabled tokens): absence is no reason to create. */
  unlisted?(desired: DesiredResource): boolean;
  /** (Plan's prune step.) What a delete does when it is not a deletion (`disabled: tokens cannot be deleted`). */
  readonly deleteMeans?: string;
  /** (The apply executor, `--test-channels`.) Request testing a resource, when the service has one. */
  testRequest?(id: string, ctx: RequestContext): ApiRequest;
  /**
   * (Plan's decide and prune steps.) The service owns every record of the kind and files set their
   * state only (the predefined policies): a declared one is updated, never created; one no file
   * selects is left alone, never deleted nor listed as unmanaged, whatever `prune` says.
   */
  readonly stateOnly?: boolean;
}

/** Capability `export`: live → file form (export). */
export interface ExportCapability {
  /** Defaults left out, references already names; null to skip (predefined). */
  toDocument(live: LiveResource, children: readonly LiveResource[]): ExportedDocument | null;
  /**
   * For kinds whose one document declares several records (a policy's exceptions, the predefined
   * policies' state): the name of the document that holds a record. Export then calls `toDocument`
   * once per document, with `live` standing for the document (its name, no spec) and `children` the
   * records it holds, in the order they were read.
   */
  documentOf?(live: LiveResource): string;
}

/**
 * Capability `perParent`: a collection the service lists per parent record (a policy's exceptions,
 * `GET /Exceptions?policyId=`). The live read (src/engine/live/fetch.ts) lists the parents first and
 * hands `list` the ones to read (FetchContext.parents); the pre-flight counts one request per parent.
 */
export interface PerParentCapability {
  /** The kind of the parents (read before this one, in the same account). */
  readonly parentKind: string;
  /** The path listing the records of one parent, by its live id (`list` reads it through ctx.get). */
  path(parentId: string): string;
}

/**
 * Capability `bulkUpdate`: the service updates many records of the kind in one request (the
 * predefined policies' `PATCH /Policies` with a bare array). The apply executor sends the updates of
 * one account as one request; the pre-flight counts one request per account.
 */
export interface BulkUpdateCapability {
  /** The one request bringing every `{id, desired}` to its desired state. */
  request(updates: readonly { id: string; desired: DesiredResource; changed: string[] }[], ctx: RequestContext): ApiRequest;
}

/**
 * Capability `select`: documents that select live records instead of naming them one by one (the
 * predefined policies' state, entries by policy id or by tag). Plan's select step (steps/select.ts)
 * runs first: it hands the kind the desired resources of the kind declared in one account and that
 * account's live resources, and plans the resources the kind returns, one per selected record, named
 * as the live ones are. What selects nothing, or what is not there to select, is the kind's to say.
 */
export interface SelectCapability {
  expand(desired: readonly DesiredResource[], live: readonly LiveResource[]): { resources: DesiredResource[]; diagnostics: Diagnostic[] };
}

/**
 * A member naming a member of another resource, as `<resource>.<member>` (a policy's
 * `profile.template`: an alert template inside an alert profile). Plan's references step checks that
 * the resource exists (declared or live) and holds the member, read by `members`.
 */
export interface MemberReference {
  /** JSON pointer of the string in the canonical spec and in the file's `spec`. */
  pointer: string;
  /** The kind of the resource named before the dot. */
  kind: string;
  /** The member names the named resource offers, read from its spec (declared or live) and from its children. */
  members(spec: JsonObject, children: readonly { name: string; spec: JsonObject }[]): string[];
  /** What a member is, for messages (`alert template`). */
  label: string;
}

/**
 * Capability `derivedId`: the service derives the id from a suffix the user chooses (a policy's id is
 * `<tenant>-<suffix>`): the name is the suffix. Plan's match step finds a live resource by the name
 * its id derives from, even when the live record's own name member says otherwise.
 */
export interface DerivedIdCapability {
  /** The suffix an id carries (the resource's name), or undefined when the id is not one the kind derives. */
  nameOf(id: string): string | undefined;
  /** Whether `name` is a suffix the service accepts (another name is an error with this rule). */
  readonly rule: { pattern: RegExp; says: string };
}

/**
 * Capability `serviceCheck`: a check the service performs at plan time (a query's `validate`
 * endpoint). The run layer sends one request per change that creates or changes a resource of the
 * kind, after the plan is made (src/ops/live/service-checks.ts), and the pre-flight counts one per
 * declared resource of the kind (the changes are not known before the read).
 */
export interface ServiceCheckCapability {
  /** The request asking the service about `desired`. */
  request(desired: DesiredResource, ctx: RequestContext): ApiRequest;
  /**
   * The service's verdict from its answer (a 2xx body, or a refusal's status and message): undefined
   * when it accepts, else what is wrong, for people.
   */
  verdict(answer: { status: number; body?: unknown; message?: string }): string | undefined;
}

/**
 * A resource kind: the core every kind has, and the capabilities it opts into. Each capability is
 * read by one step (the others that touch it only pass it on or render it):
 *
 * | capability       | read by                                                               |
 * |------------------|-----------------------------------------------------------------------|
 * | documents        | config: load-file.ts (schemas), semantic.ts (check)                   |
 * | rootSettings     | config: root.ts                                                       |
 * | hierarchy        | plan: steps/fold.ts (children folded into their parent's change)      |
 * | references       | plan: steps/references.ts; live: fetch.ts maps ids to names           |
 * | memberReferences | plan: steps/references.ts (`profile.template` checked against members)|
 * | compare          | plan: diff.ts                                                         |
 * | secrets          | plan: diff.ts (never shown, write-only never compared); config: semantic.ts |
 * | credentials      | apply: apply-change.ts                                                |
 * | rename           | plan: steps/rename.ts                                                 |
 * | lifecycle        | plan: steps/decide.ts, steps/prune.ts; apply: apply-change.ts (tests)  |
 * | check            | plan: steps/check.ts                                                  |
 * | searchable       | live: fetch.ts (and the pre-flight's read groups)                     |
 * | perParent        | live: fetch.ts (one read per parent; the pre-flight counts them)      |
 * | bulkUpdate       | apply: apply.ts (one request per account; the pre-flight counts it)   |
 * | derivedId        | plan: steps/match.ts                                                  |
 * | select           | plan: steps/select.ts (selections expanded against live, before scope)|
 * | serviceCheck     | ops: live/service-checks.ts, called by the run layer after the plan   |
 * | routing          | plan: steps/routing.ts (routing maps)                                 |
 * | export           | export: export.ts                                                     |
 *
 * The tool's own records (the apply lease, the applied commit) are no kind's business: they live in
 * src/ops/lease/lease-record.ts and src/ops/apply/applied-record.ts.
 */
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
  /** Schema file name under schemas/ for document kinds, e.g. `alert-channel.schema.json`. */
  readonly schema: string | null;
  /**
   * API collection of the list call that reads this kind, e.g. `AlertChannels` (templates are read
   * with their profiles: `AlertProfiles`). Its rate-limit bucket follows from src/api/buckets.ts.
   */
  readonly collection: string;
  /** Document → desired resources (a profile yields itself and its templates), with problems. */
  fromDocument(doc: ResourceDocument): { resources: DesiredResource[]; diagnostics: Diagnostic[] };
  /** Live resources of one account, normalised. Uses ctx.get (shared, memoised list calls only). */
  list(ctx: FetchContext): Promise<LiveResource[]>;
  /** Request creating `desired` (secrets resolved); `children` are included when the kind owns children. */
  createRequest(desired: DesiredResource, children: DesiredResource[], ctx: RequestContext): ApiRequest;
  /**
   * Identifier of the created resource from the create response body; `ctx` resolves what the id
   * carries besides (a policy exception's id holds its policy's).
   */
  createdId(body: unknown, desired: DesiredResource, ctx?: RequestContext): string;
  /**
   * Requests bringing live `id` to `desired`; `changed` lists the changed top-level members. With
   * `rename` (kinds that rename in place) the requests also give the resource `desired.name`.
   */
  updateRequests(id: string, desired: DesiredResource, changed: string[], ctx: RequestContext, options?: UpdateOptions): ApiRequest[];
  deleteRequest(id: string, ctx: RequestContext): ApiRequest;

  // Capabilities (see the table above).
  readonly documents?: DocumentsCapability;
  /**
   * Top-level settings of postureops.yaml this kind owns, by name, with their JSON Schemas (the root
   * schema includes them; their values reach the kind as KindSettings).
   */
  readonly rootSettings?: Readonly<Record<string, SchemaObject>>;
  readonly hierarchy?: HierarchyCapability;
  /** Members naming other resources; the engine orders by them and maps live ids to names. */
  readonly references?: readonly Reference[];
  /**
   * Other spec members that name something (a base profile, a child's name), as pointers with `*`
   * for any list index: like references, never read from the environment.
   */
  readonly identifiers?: readonly string[];
  readonly memberReferences?: readonly MemberReference[];
  readonly compare?: CompareCapability;
  readonly secrets?: SecretsCapability;
  readonly credentials?: CredentialsCapability;
  readonly rename?: RenameCapability;
  readonly lifecycle?: LifecycleCapability;
  /** Problems that need live state (template placeholders against the parent's descriptionKeys). */
  check?(desired: DesiredResource, live: readonly LiveResource[], settings?: KindSettings): Diagnostic[];
  /**
   * `POST <collection>/search` with no filters and no `returns` answers the same records as the list
   * `GET <collection>`. The two are separate functionalities of the service, each with its own
   * rate-limit budget, so a read may take either (alert profiles have no search).
   */
  readonly searchable?: boolean;
  readonly perParent?: PerParentCapability;
  readonly bulkUpdate?: BulkUpdateCapability;
  readonly derivedId?: DerivedIdCapability;
  readonly select?: SelectCapability;
  readonly serviceCheck?: ServiceCheckCapability;
  /** The kind takes part in routing maps (alert channels and alert rules); see RoutingHook. */
  readonly routing?: RoutingHook;
  readonly export?: ExportCapability;
}
