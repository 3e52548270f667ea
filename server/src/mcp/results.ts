/**
 * What a tool answers: a structured result (with the same JSON as text, for clients that read only text), or a tool
 * error (`isError`) that names each field at fault and why. A refused run is a tool error, never a protocol error:
 * the model that called the tool should read it and try again.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RunRefused } from '../runs/refused.js';
import type { RunRefusal } from './context.js';

/** One argument at fault: its path in the tool's arguments, and the reason. */
export interface FieldError {
  field: string;
  message: string;
  code?: string;
}

/** A structured result, and the same as JSON text. */
export function structured<T extends Record<string, unknown>>(
  content: T,
  text?: string,
): CallToolResult & { structuredContent: T } {
  return { structuredContent: content, content: [{ type: 'text', text: text ?? JSON.stringify(content) }] };
}

/**
 * A tool error: `code` and `message` first, then each field at fault, one a line. Text only: a client checks any
 * `structuredContent` against the tool's output schema, errors included.
 */
export function toolError(code: string, message: string, errors: readonly FieldError[] = []): CallToolResult {
  const fields = errors.map((e) => `\n- ${e.field}: ${e.message}${e.code ? ` (${e.code})` : ''}`).join('');
  return {
    isError: true,
    content: [{ type: 'text', text: `${code}: ${message}${fields}` }],
  };
}

/** The HTTP layer's `body.rounds` is the tool's `rounds`. */
const fieldOf = (path: string) => path.replace(/^body\.?/, '') || '(arguments)';

/** A `RunRefused` as a tool error; anything else is rethrown (the SDK reports it as the tool's failure). */
export function refusedAsToolError(error: unknown): CallToolResult {
  if (!(error instanceof RunRefused)) throw error;
  const errors = (error.errors ?? []).map((e) => ({
    field: fieldOf(e.path),
    message: e.message,
    ...(e.code !== undefined && { code: e.code }),
  }));
  return toolError(error.code, error.message, errors);
}

/** Zod's issues (the contract's schemas) as the fields at fault. */
export function issuesAsFields(
  issues: readonly { path: readonly PropertyKey[]; message: string; code?: string }[],
): FieldError[] {
  return issues.map((i) => ({
    field: i.path.map(String).join('.') || '(arguments)',
    message: i.message,
    ...(i.code !== undefined && { code: i.code }),
  }));
}

/** A run the limits refused, as a tool error that says when to try again. */
export function limitedAsToolError(refusal: RunRefusal): CallToolResult {
  return toolError(refusal.code, `${refusal.message} Try again in ${refusal.retryAfterS} s.`);
}
