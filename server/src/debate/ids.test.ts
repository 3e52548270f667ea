import { describe, expect, it } from 'vitest';
import { zSessionId } from '../generated/schemas/zod.gen.js';
import { newSessionId } from './ids.js';

describe('newSessionId', () => {
  it('is a contract SessionId that sorts by creation time and does not repeat', () => {
    const ids = [newSessionId(1_000), newSessionId(2_000), newSessionId(2_000)];
    for (const id of ids) expect(zSessionId.safeParse(id).success, id).toBe(true);
    expect(ids[0]! < ids[1]!).toBe(true);
    expect(ids[1]!.slice(0, 14)).toBe(ids[2]!.slice(0, 14));
    expect(new Set(Array.from({ length: 1000 }, () => newSessionId())).size).toBe(1000);
  });
});
