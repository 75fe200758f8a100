// The one interface every resource kind implements. The engine never switches on a kind's name:
// everything kind-specific (identity, API paths, normalising, request bodies, references,
// write-only fields, set-like lists) lives behind this interface in src/kinds/<kind>.ts.

import type { ApiRequest } from '../api/types.js';
import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';

import type { Json, JsonObject } from '../model/json.js';
import type { DesiredResource, LiveResource, ResourceDocument } from '../model/resource.js';

export type { DesiredResource, Json, JsonObject, LiveResource, ResourceDocument };

/** A member of `spec` that names other resources of the same account. */
export interface Reference {
  kind: string;
  /** JSON pointer to a string or an array of strings. */
  pointer: string;
}

export interface FetchContext {
  account: string;
  orgAccess: boolean;
  /** GET memoised per account and path, `{data}` unwrapped. Kinds that share a list share the call. */
  get(path: string): Promise<unknown>;
}

export interface RequestContext {
  account: string;
  orgAccess: boolean;
  /** Live id of the resource of `kind` named `name` in this account, including ones created in this run. */
  resolve(kind: string, name: string): string;
}

/** A document as export writes it: `spec` in file form, secrets still present (export replaces them). */
export interface ExportedDocument {
  kind: string;
  name: string;
  spec: JsonObject;
}

export interface Kind {
  /** Kind name used in plans and output, e.g. `AlertChannel`. */
  readonly kind: string;
  /** The document `kind:` this kind reads; null for kinds produced by another kind's documents. */
  readonly documentKind: string | null;
  /** Schema file name under schemas/ for document kinds, e.g. `alert-channel.schema.json`. */
  readonly schema: string | null;
  /** Owning kind: its resources are this kind's parents (AlertTemplate → AlertProfile). */
  readonly parentKind?: string;
  /** Creating this kind's resource also creates its children in one call; deleting it deletes them. */
  readonly ownsChildren?: boolean;
  /** Members naming other resources; the engine orders by them and maps live ids to names. */
  readonly references: readonly Reference[];
  /** Top-level spec members no endpoint can change: a change to one plans a replace. */
  readonly replaceOn: readonly string[];
  /** Rate-limit bucket of the list call (for budgeting), e.g. `GET AlertChannels`. */
  readonly listBucket: string;

  /** JSON pointers of arrays in this spec compared as sets (the service reorders them). */
  setPointers(spec: JsonObject): string[];
  /** Write-only secret pointers in this spec: never compared, never shown, sent only when needed. */
  writeOnly(spec: JsonObject): string[];
  /** Secret pointers the service returns in clear: compared, never shown. */
  sensitive(spec: JsonObject): string[];

  /** Document → desired resources (a profile yields itself and its templates), with problems. */
  fromDocument(doc: ResourceDocument): { resources: DesiredResource[]; diagnostics: Diagnostic[] };
  /** Live resources of one account, normalised. Uses ctx.get (shared, memoised list calls only). */
  list(ctx: FetchContext): Promise<LiveResource[]>;
  /** Problems that need live state (template placeholders against the parent's descriptionKeys). */
  check?(desired: DesiredResource, live: readonly LiveResource[]): Diagnostic[];

  /** Request creating `desired` (secrets resolved); `children` are included when ownsChildren. */
  createRequest(desired: DesiredResource, children: DesiredResource[], ctx: RequestContext): ApiRequest;
  /** Identifier of the created resource from the create response body. */
  createdId(body: unknown, desired: DesiredResource): string;
  /** Requests bringing live `id` to `desired`; `changed` lists the changed top-level members. */
  updateRequests(id: string, desired: DesiredResource, changed: string[], ctx: RequestContext): ApiRequest[];
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
  /** The service does not list resources in this desired state (disabled tokens): absence is no reason to create. */
  unlisted?(desired: DesiredResource): boolean;
  /** What a delete does when it is not a deletion, for the plan to say (`disabled: tokens cannot be deleted`). */
  readonly deleteMeans?: string;

  /** Live → file form (defaults left out, references already names); null to skip (predefined). */
  toDocument(live: LiveResource, children: readonly LiveResource[]): ExportedDocument | null;
}
