import { describe, expect, it } from 'vitest';
import type { DebateEvent } from '../../../../sdk/src/generated/types.gen.js';
import { accessNotice, deleteNotice, MAX_PAYLOAD_BYTES, parseNotice, writeNotice } from './notify.js';

const delta = (seq: number, text: string): DebateEvent => ({
  v: 1,
  type: 'answer.delta',
  sessionId: 'ses_1',
  seq,
  ts: '2025-01-01T00:00:00.000Z',
  round: 1,
  slot: 1,
  delta: text,
});

describe('notices', () => {
  it('carries small steps inline and round-trips them', () => {
    const events = [delta(3, 'a'), delta(4, 'b')];
    expect(parseNotice(writeNotice('inst', 'ses_1', events))).toStrictEqual({ k: 'w', i: 'inst', s: 'ses_1', e: events });
    expect(parseNotice(writeNotice('inst', 'ses_1', []))).toStrictEqual({ k: 'w', i: 'inst', s: 'ses_1' });
    expect(parseNotice(deleteNotice('inst', 'ses_1'))).toStrictEqual({ k: 'd', i: 'inst', s: 'ses_1' });
  });

  it('sends a seq range instead when the events would pass 8000 bytes, counting bytes, not characters', () => {
    // 3000 characters, 9000 bytes in UTF-8.
    const wide = writeNotice('inst', 'ses_1', [delta(7, '€'.repeat(3000))]);
    expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    expect(parseNotice(wide)).toStrictEqual({ k: 'w', i: 'inst', s: 'ses_1', r: [7, 7] });
    const many = writeNotice(
      'inst',
      'ses_1',
      Array.from({ length: 200 }, (_, i) => delta(10 + i, 'xxxxxxxx')),
    );
    expect(parseNotice(many)).toStrictEqual({ k: 'w', i: 'inst', s: 'ses_1', r: [10, 209] });
  });

  it('carries an end of access, and ignores one that is not', () => {
    const end = { reason: 'share_revoked', sessionId: 'ses_1', userId: 'usr_2' } as const;
    expect(parseNotice(accessNotice('inst', end))).toStrictEqual({ k: 'a', i: 'inst', s: '', e: end });
    expect(parseNotice('{"k":"a","i":"inst","s":"","e":{"reason":"share_revoked","sessionId":"ses_1"}}')).toBeUndefined();
    expect(parseNotice('{"k":"a","i":"inst","s":"","e":{"reason":"everything"}}')).toBeUndefined();
  });

  it('ignores payloads that are not notices', () => {
    for (const payload of [undefined, '', 'LISTEN', '{"k":"x","i":"a","s":"b"}', '{"k":"w","s":"b"}', '[]', 'null']) {
      expect(parseNotice(payload)).toBeUndefined();
    }
  });
});
