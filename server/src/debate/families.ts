/**
 * A model's family and underlying model, read from its id, so the integrity report can say when two slots'
 * agreement is weaker evidence than it looks: models favour their own family's answers even when anonymous,
 * and one model behind two endpoints (a provider's own API and an aggregator, or two local servers) is one
 * voice, not two. Ids are read as operators write them: `claude-sonnet-4-5`, `gpt-4o-2024-08-06`,
 * `openai/gpt-4o` (OpenRouter), `qwen2.5:7b` (Ollama), `models/gemini-2.5-flash`.
 */

/** Id prefixes → family; the first that matches wins, so longer names come before the shorter ones they contain. */
const FAMILIES: readonly [RegExp, string][] = [
  [/^claude/, 'claude'],
  [/^(gpt|chatgpt|o[1-9](\b|-|$)|davinci|text-davinci)/, 'gpt'],
  [/^(gemini|gemma|palm|bison)/, 'gemini'],
  [/^deepseek/, 'deepseek'],
  [/^grok/, 'grok'],
  [/^(qwen|qwq)/, 'qwen'],
  [/^(llama|codellama|meta-llama)/, 'llama'],
  [/^(mistral|mixtral|codestral|ministral|magistral|devstral|pixtral)/, 'mistral'],
  [/^phi/, 'phi'],
  [/^(command|c4ai)/, 'command'],
  [/^(kimi|moonshot)/, 'kimi'],
  [/^(glm|chatglm)/, 'glm'],
  [/^offline-/, 'offline'],
];

/**
 * The model an id names, whoever serves it: lower-cased, without a vendor path (`openai/`, `models/`), a
 * `:latest` tag, a `-latest` suffix or a release date (`-2024-08-06`, `-20240806`).
 */
export function underlyingModel(model: string): string {
  return model
    .trim()
    .toLowerCase()
    .replace(/^.*\//, '')
    .replace(/:latest$/, '')
    .replace(/-latest$/, '')
    .replace(/-(\d{4}-\d{2}-\d{2}|\d{8})$/, '');
}

/** The family of a model id; for one no rule knows, its first run of letters (`foo-7b` → `foo`). */
export function modelFamily(model: string): string {
  const id = underlyingModel(model);
  for (const [pattern, family] of FAMILIES) if (pattern.test(id)) return family;
  return /^[a-z]+/.exec(id)?.[0] ?? id;
}
