import { describe, expect, it } from 'vitest';
import { StoreError } from '../../sessions/store.js';
import { toStoreError } from './errors.js';

const pgError = (code: string, message = 'boom') => Object.assign(new Error(message), { code });

describe('toStoreError', () => {
  it('maps what a caller can act on to a StoreError code', () => {
    const cases: [unknown, StoreError['code']][] = [
      [pgError('23505', 'duplicate key value violates unique constraint "events_pkey"'), 'conflict'],
      [pgError('ECONNREFUSED'), 'unavailable'],
      [pgError('08006'), 'unavailable'],
      [pgError('57P01', 'terminating connection due to administrator command'), 'unavailable'],
      [pgError('53300', 'too many clients already'), 'unavailable'],
      [pgError('3D000', 'database "x" does not exist'), 'unavailable'],
      [pgError('28P01', 'password authentication failed'), 'unavailable'],
      [new Error('Connection terminated unexpectedly'), 'unavailable'],
      [pgError('XX001', 'invalid page in block'), 'corrupt'],
    ];
    for (const [error, code] of cases) {
      const mapped = toStoreError(error);
      expect(mapped).toBeInstanceOf(StoreError);
      expect(mapped).toMatchObject({ code, cause: error });
    }
  });

  it('passes bugs through unchanged, and StoreErrors as they are', () => {
    const syntax = pgError('42601', 'syntax error');
    expect(toStoreError(syntax)).toBe(syntax);
    const notNull = pgError('23502', 'null value in column "provider"');
    expect(toStoreError(notNull)).toBe(notNull);
    const store = new StoreError('conflict', 'seq');
    expect(toStoreError(store)).toBe(store);
  });
});
