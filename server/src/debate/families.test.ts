import { describe, expect, it } from 'vitest';
import { modelFamily, underlyingModel } from './families.js';

describe('model families', () => {
  it('reads the family from ids as operators write them', () => {
    const cases: [string, string][] = [
      ['claude-sonnet-4-5', 'claude'],
      ['anthropic/claude-3.5-sonnet', 'claude'],
      ['gpt-4o-2024-08-06', 'gpt'],
      ['o3-mini', 'gpt'],
      ['openai/gpt-4.1-mini', 'gpt'],
      ['models/gemini-2.5-flash', 'gemini'],
      ['gemma2:9b', 'gemini'],
      ['deepseek-chat', 'deepseek'],
      ['grok-3-mini', 'grok'],
      ['qwen2.5:7b', 'qwen'],
      ['qwq:32b', 'qwen'],
      ['meta-llama/llama-3.1-70b-instruct', 'llama'],
      ['mixtral-8x7b', 'mistral'],
      ['offline-anthropic', 'offline'],
      ['foo-bar-7b', 'foo'],
    ];
    for (const [model, family] of cases) expect(modelFamily(model), model).toBe(family);
  });

  it('sees one model behind different endpoints, not two sizes of one family', () => {
    expect(underlyingModel('openai/gpt-4o')).toBe(underlyingModel('gpt-4o-2024-08-06'));
    expect(underlyingModel('llama3.1:latest')).toBe(underlyingModel('llama3.1'));
    expect(underlyingModel('claude-3-5-sonnet-latest')).toBe('claude-3-5-sonnet');
    expect(underlyingModel('qwen2.5:7b')).not.toBe(underlyingModel('qwen2.5:14b'));
  });
});
