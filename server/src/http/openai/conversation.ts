/**
 * Which session an OpenAI conversation continues. Chat UIs resend the whole history and drop unknown fields, so each
 * session started here is tagged with a hash of the turns that asked it (`oai:` + 40 hex); a later request whose
 * turns before its last answer hash the same continues that session as a follow-up. A client that keeps the
 * `consilium.session_id` of an earlier answer names it directly.
 */
import { createHash } from 'node:crypto';
import type { Turn } from './request.js';

export const CONVERSATION_TAG_PREFIX = 'oai:';

/** The tag of the conversation whose turns are `turns` (the question last). */
export function conversationTag(turns: readonly Pick<Turn, 'role' | 'content'>[]): string {
  const text = JSON.stringify(turns.map((t) => [t.role, t.content.trim()]));
  return `${CONVERSATION_TAG_PREFIX}${createHash('sha256').update(text).digest('hex').slice(0, 40)}`;
}

/** How to find the session `history` continues: a session id it carries, else the tag of the turns before its last answer. */
export function parentOf(history: readonly Turn[]): { sessionId: string } | { tag: string } | undefined {
  const lastAnswer = history.findLastIndex((t) => t.role === 'assistant');
  if (lastAnswer < 0) return undefined;
  const named = history[lastAnswer]!.sessionId;
  if (named) return { sessionId: named };
  return { tag: conversationTag(history.slice(0, lastAnswer)) };
}
