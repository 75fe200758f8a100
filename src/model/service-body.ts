// A body the service answered that a kind cannot read (a list that is no list, a record without its
// id, a create answer without the new id): the service's fault, not a refusal of the request, so it
// is not an ApiError (no status, nothing to retry). Kinds throw it; apply reads `mayHaveApplied`.

export type MalformedBodyCode =
  /** A list answer that is not a list of records. */
  | 'not-a-list'
  /** A live record without a member that identifies it. */
  | 'record-without-identity'
  /** A create answered without the new resource's id: the create may have happened. */
  | 'created-without-id'
  /** An id that a URL resolver reads as a path step or as nothing ('', '.', '..'): no request is built with it. */
  | 'unaddressable-id';

export class MalformedBodyError extends Error {
  constructor(
    readonly code: MalformedBodyCode,
    readonly method: string,
    readonly path: string,
    /** What was expected and missing, for people. */
    readonly detail: string,
  ) {
    super(`${method} ${path}: the service answered a body postureops cannot read (${detail})`);
    this.name = 'MalformedBodyError';
  }

  /** Whether the request behind the answer may have changed something (a create: look it up before repeating it). */
  get mayHaveApplied(): boolean {
    return this.code === 'created-without-id';
  }
}
