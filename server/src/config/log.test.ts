import { describe, expect, it } from 'vitest';
import type { LogLevel } from './config.js';
import { createLogger } from './log.js';

type Method = 'debug' | 'info' | 'warn' | 'error';
const METHODS: Method[] = ['debug', 'info', 'warn', 'error'];

/** A logger that writes into an array, and the array. */
function capture(level: LogLevel) {
  const lines: string[] = [];
  const logger = createLogger(level, (line) => lines.push(line));
  return { logger, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('createLogger level filtering', () => {
  it.each<[LogLevel, Method[]]>([
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['info', ['info', 'warn', 'error']],
    ['warn', ['warn', 'error']],
    ['error', ['error']],
    ['silent', []],
  ])('at %s writes %j', (level, written) => {
    const { logger, records } = capture(level);
    for (const method of METHODS) logger[method](`a ${method} message`);
    expect(records().map((r) => r.level)).toEqual(written);
    expect(records().map((r) => r.msg)).toEqual(written.map((m) => `a ${m} message`));
  });
});

describe('createLogger lines', () => {
  it('writes one JSON object per call, ending in exactly one newline', () => {
    const { logger, lines } = capture('debug');
    logger.info('first', { n: 1 });
    logger.error('second');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line.endsWith('\n')).toBe(true);
      expect(line.indexOf('\n')).toBe(line.length - 1);
      expect(JSON.parse(line)).toBeTypeOf('object');
    }
  });

  it('starts with time, level and msg, then the fields', () => {
    const before = Date.now();
    const { logger, lines, records } = capture('info');
    logger.info('request', { requestId: 'r-1', status: 200, ms: 1.5, path: '/health' });
    const [record] = records();
    expect(Object.keys(record!)).toEqual(['time', 'level', 'msg', 'requestId', 'status', 'ms', 'path']);
    expect(record).toMatchObject({ level: 'info', msg: 'request', requestId: 'r-1', status: 200, ms: 1.5, path: '/health' });
    const time = record!.time as string;
    expect(new Date(time).toISOString()).toBe(time);
    expect(Date.parse(time)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(time)).toBeLessThanOrEqual(Date.now() + 1);
    expect(lines[0]!.startsWith('{"time":"')).toBe(true);
  });

  it('keeps a multi-line message or field (a stack trace) on one line', () => {
    const { logger, lines, records } = capture('error');
    const stack = 'Error: boom\n    at one (a.ts:1:1)\n    at two (b.ts:2:2)';
    logger.error('unhandled error\nsecond line', { error: stack, nested: { list: [1, 'two\nlines'] } });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.split('\n')).toEqual([expect.any(String), '']);
    expect(records()[0]).toMatchObject({
      msg: 'unhandled error\nsecond line',
      error: stack,
      nested: { list: [1, 'two\nlines'] },
    });
  });

  it('does not let fields replace the line’s own time, level or message', () => {
    const { logger, records } = capture('warn');
    logger.warn('real message', { level: 'debug', msg: 'spoofed', time: 'yesterday', extra: true });
    const [record] = records();
    expect(record).toMatchObject({ level: 'warn', msg: 'real message', extra: true });
    expect(record!.time).not.toBe('yesterday');
  });

  it('writes nothing at all when silent', () => {
    const { logger, lines } = capture('silent');
    for (const method of METHODS) logger[method]('quiet', { a: 1 });
    expect(lines).toEqual([]);
  });
});
