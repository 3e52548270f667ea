/**
 * What of an OpenAI chat request Consilium takes: the question (the last user message), the caller's system
 * message, the earlier turns, the budget and the stream's options. Unknown fields are ignored, as OpenAI does;
 * what cannot be honoured (`n > 1`, `tools`, images) is refused with the parameter named.
 */
import { zQuestion } from '../../generated/schemas/zod.gen.js';
import { OpenAIRequestError } from './errors.js';

export interface Turn {
  role: 'user' | 'assistant';
  content: string;
  /** The `consilium` extension field an earlier assistant message carried back (some clients keep it). */
  sessionId?: string;
}

export interface ChatRequest {
  model: string;
  question: string;
  /** The system (or developer) messages, joined: given to every model. */
  system?: string;
  /** The user and assistant turns before the question. */
  history: Turn[];
  stream: boolean;
  includeUsage: boolean;
  maxTokens?: number;
  temperature?: number;
}

const bad = (message: string, param: string | null, code = 'invalid_value') => new OpenAIRequestError(400, code, message, param);

/** A message's text; images and other non-text parts are refused (the council reads text). */
function textOf(content: unknown, param: string): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (!Array.isArray(content)) throw bad('Message content must be a string or an array of text parts.', param);
  return content
    .map((part: unknown, i) => {
      const p = part as { type?: unknown; text?: unknown };
      if (p?.type === 'text' && typeof p.text === 'string') return p.text;
      throw bad(
        `Only text content is supported; part ${i} is ${JSON.stringify(p?.type ?? typeof part)} (images and files are not).`,
        `${param}[${i}]`,
        'unsupported_content',
      );
    })
    .join('');
}

function positiveInt(body: Record<string, unknown>, name: string): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || (value as number) < 1) throw bad(`\`${name}\` must be a positive integer.`, name);
  return value as number;
}

export function readChatRequest(raw: unknown): ChatRequest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('The body must be a JSON object.', null);
  const body = raw as Record<string, unknown>;
  if (typeof body.model !== 'string' || body.model === '')
    throw bad('`model` is required.', 'model', 'missing_required_parameter');
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw bad('`messages` must be a non-empty array.', 'messages', 'missing_required_parameter');
  if (body.n !== undefined && body.n !== null && body.n !== 1)
    throw bad('Only `n: 1` is supported: the council gives one verdict per question.', 'n', 'unsupported_parameter');
  if (Array.isArray(body.tools) ? body.tools.length > 0 : body.tools !== undefined && body.tools !== null)
    throw bad('`tools` are not supported: the council answers in text.', 'tools', 'unsupported_parameter');
  if (body.functions !== undefined && body.functions !== null)
    throw bad('`functions` are not supported: the council answers in text.', 'functions', 'unsupported_parameter');

  const system: string[] = [];
  const turns: Turn[] = [];
  body.messages.forEach((m: unknown, i) => {
    const message = m as { role?: unknown; content?: unknown; consilium?: { session_id?: unknown } };
    const param = `messages[${i}].content`;
    if (typeof message !== 'object' || message === null) throw bad('Each message must be an object.', `messages[${i}]`);
    if (message.role === 'system' || message.role === 'developer') system.push(textOf(message.content, param));
    else if (message.role === 'user' || message.role === 'assistant') {
      const sessionId = message.consilium?.session_id;
      turns.push({
        role: message.role,
        content: textOf(message.content, param),
        ...(typeof sessionId === 'string' && { sessionId }),
      });
    } else
      throw bad(
        `Role ${JSON.stringify(message.role)} is not supported (system, developer, user, assistant).`,
        `messages[${i}].role`,
      );
  });
  const last = turns.at(-1);
  if (!last || last.role !== 'user') throw bad('The last message must be the user’s question.', 'messages');
  const question = zQuestion.safeParse(last.content);
  if (!question.success)
    throw bad(
      'The question (the last user message) must hold text, at most 20000 characters.',
      `messages[${body.messages.length - 1}].content`,
    );
  if (body.temperature !== undefined && body.temperature !== null && typeof body.temperature !== 'number')
    throw bad('`temperature` must be a number.', 'temperature');
  const maxTokens = positiveInt(body, 'max_completion_tokens') ?? positiveInt(body, 'max_tokens');
  const options = body.stream_options as { include_usage?: unknown } | undefined | null;
  return {
    model: body.model,
    question: question.data,
    ...(system.length > 0 && { system: system.join('\n\n') }),
    history: turns.slice(0, -1),
    stream: body.stream === true,
    includeUsage: options?.include_usage === true,
    ...(maxTokens !== undefined && { maxTokens }),
    ...(typeof body.temperature === 'number' && { temperature: body.temperature }),
  };
}
