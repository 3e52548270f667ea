/** Why a run was not started: a stable `code` the HTTP layer maps to its status, and what to tell the caller. */
export type RefusalCode =
  | 'validation_failed'
  | 'unknown_provider'
  | 'unknown_wiki_source'
  | 'not_found'
  | 'forbidden'
  | 'conflict';

export class RunRefused extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
    /** The request's fields at fault, for `validation_failed`. */
    readonly errors?: readonly { path: string; message: string; code?: string }[],
  ) {
    super(message);
    this.name = 'RunRefused';
  }
}
