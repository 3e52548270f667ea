import { describe, expect, it } from 'vitest';
import { navSection, parseRoute } from './router.js';

describe('parseRoute', () => {
  it('reads hash routes: a session, history with its search, the other pages, and Ask for anything else', () => {
    expect(parseRoute('#/sessions/ses_a%2Fb')).toEqual({ name: 'session', id: 'ses_a/b' });
    expect(parseRoute('#/sessions?q=kafka')).toEqual({ name: 'history', q: 'kafka' });
    expect(parseRoute('#/tokens')).toEqual({ name: 'tokens' });
    expect(parseRoute('')).toEqual({ name: 'ask' });
    expect(parseRoute('#/nowhere')).toEqual({ name: 'ask' });
  });
});

describe('navSection', () => {
  const session = parseRoute('#/sessions/ses_1');

  it('puts a session started from Ask under Ask, not History', () => {
    expect(navSection(session, 'ask')).toBe('ask');
  });

  it('puts a session opened from history, another page or a fresh load under History', () => {
    expect(navSection(session, 'history')).toBe('history');
    expect(navSection(session, 'tokens')).toBe('history');
    expect(navSection(session, undefined)).toBe('history');
  });

  it('gives every other page its own item', () => {
    expect(navSection(parseRoute('#/providers'), 'ask')).toBe('providers');
    expect(navSection(parseRoute('#/'), 'history')).toBe('ask');
  });
});
