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
      ['phi3:mini', 'phi'],
      ['command-r-plus', 'command'],
      ['kimi-k2', 'kimi'],
      ['glm-4.5', 'glm'],
      [' GPT-4o ', 'gpt'],
    ];
    for (const [model, family] of cases) expect(modelFamily(model), model).toBe(family);
  });

  it('reads the family from the id’s start: a fine-tune that names another family is its maker’s', () => {
    const words = [
      'claude',
      'gpt',
      'gemini',
      'deepseek',
      'grok',
      'qwen',
      'llama',
      'mistral',
      'phi',
      'command',
      'kimi',
      'glm',
      'offline-x',
    ];
    for (const word of words) expect(modelFamily(`acme-${word}`), word).toBe('acme');
    // No letters to start with: the id itself.
    expect(modelFamily('42')).toBe('42');
    expect(modelFamily('7b-chat')).toBe('7b-chat');
  });

  it('strips only a trailing release date or tag', () => {
    expect(underlyingModel('claude-3-5-sonnet-20241022')).toBe('claude-3-5-sonnet');
    expect(underlyingModel('gpt-4')).toBe('gpt-4');
    expect(underlyingModel('claude-3-5-sonnet-20241022-v2:0')).toBe('claude-3-5-sonnet-20241022-v2:0');
  });

  it('sees one model behind different endpoints, not two sizes of one family', () => {
    expect(underlyingModel('openai/gpt-4o')).toBe(underlyingModel('gpt-4o-2024-08-06'));
    expect(underlyingModel('llama3.1:latest')).toBe(underlyingModel('llama3.1'));
    expect(underlyingModel('claude-3-5-sonnet-latest')).toBe('claude-3-5-sonnet');
    expect(underlyingModel('qwen2.5:7b')).not.toBe(underlyingModel('qwen2.5:14b'));
  });
});
