import { describe, expect, it } from 'vitest';
import { ConfigError } from './slots.js';
import { botPasswordVariable, DEFAULT_WIKI_LIMITS, wikisFromEnv } from './wikis.js';

describe('wikisFromEnv', () => {
  it('has no source by default', () => {
    expect(wikisFromEnv({})).toEqual([]);
  });

  it('reads named sources with their limits, and the bot password from its own variable', () => {
    const [team, other] = wikisFromEnv({
      CONSILIUM_WIKIS: JSON.stringify({
        'team-wiki': { api: 'http://127.0.0.1:9/api.php', botUser: 'Admin@consilium', pages: 2, requestsPerRound: 0 },
        other: { api: 'https://wiki.example/w/api.php', userAgent: 'X/1 (me@example.org)' },
      }),
      [botPasswordVariable('team-wiki')]: 's3cret',
    });
    expect(botPasswordVariable('team-wiki')).toBe('CONSILIUM_WIKI_TEAM_WIKI_BOT_PASSWORD');
    expect(team).toMatchObject({
      name: 'team-wiki',
      bot: { user: 'Admin@consilium', password: 's3cret' },
      limits: { pages: 2, bytesPerPage: DEFAULT_WIKI_LIMITS.bytesPerPage, requestsPerRound: 0 },
    });
    expect(other).toMatchObject({ name: 'other', userAgent: 'X/1 (me@example.org)', limits: DEFAULT_WIKI_LIMITS });
    expect(other!.bot).toBeUndefined();
    expect(other!.limits.maxResponseBytes).toBe(1024 * 1024);
    const [capped] = wikisFromEnv({ CONSILIUM_WIKIS: '{"t":{"api":"http://x/api.php","maxResponseBytes":65536}}' });
    expect(capped!.limits.maxResponseBytes).toBe(65536);
  });

  it.each([
    ['not JSON', '{'],
    ['a bad name', '{"Team Wiki":{"api":"http://x/api.php"}}'],
    ['no api', '{"t":{}}'],
    ['credentials in the URL', '{"t":{"api":"http://u:p@x/api.php"}}'],
    ['an unknown key', '{"t":{"api":"http://x/api.php","password":"p"}}'],
    ['a limit out of range', '{"t":{"api":"http://x/api.php","pages":0}}'],
    ['a response cap under 64 KiB', '{"t":{"api":"http://x/api.php","maxResponseBytes":65535}}'],
    ['a bot user without its password', '{"t":{"api":"http://x/api.php","botUser":"A@b"}}'],
  ])('refuses %s', (_, raw) => {
    expect(() => wikisFromEnv({ CONSILIUM_WIKIS: raw })).toThrow(ConfigError);
  });
});
