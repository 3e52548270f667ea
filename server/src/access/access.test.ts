/**
 * The watch over open requests: each kind of end aborts exactly the holds that relied on it, an end between a
 * request's credential check and its hold aborts the hold at once, ends travel through the bus both ways, and
 * lost notices make every hold check again.
 */
import { describe, expect, it, vi } from 'vitest';
import { type AccessBus, type AccessEnd, AccessEnded, AccessWatch, ends, parseAccessEnd, type Reliance } from './access.js';

const token = { kind: 'token', id: 'tok_1' } as const;
const cookie = { kind: 'signIn', id: 'sgn_1' } as const;
const ownerOf = (id: string): Reliance => ({ userId: 'usr_o', credential: token, session: { id, through: 'owner' } });
const reader: Reliance = { userId: 'usr_r', credential: cookie, session: { id: 'ses_1', through: 'share' } };
const admin: Reliance = { userId: 'usr_a', credential: token, session: { id: 'ses_1', through: 'admin' } };
const deep: Reliance = { userId: 'usr_r', credential: token };

describe('ends', () => {
  const cases: [AccessEnd, Reliance[], Reliance[]][] = [
    [{ reason: 'share_revoked', sessionId: 'ses_1', userId: 'usr_r' }, [reader], [ownerOf('ses_1'), admin, deep]],
    [{ reason: 'share_revoked', sessionId: 'ses_2', userId: 'usr_r' }, [], [reader]],
    [{ reason: 'session_deleted', sessionId: 'ses_1' }, [reader, admin, ownerOf('ses_1')], [ownerOf('ses_2'), deep]],
    [{ reason: 'user_disabled', userId: 'usr_r' }, [reader, deep], [admin, ownerOf('ses_1')]],
    [{ reason: 'user_deleted', userId: 'usr_r' }, [reader, deep], [admin]],
    [{ reason: 'password_reset', userId: 'usr_r' }, [reader, deep], [admin]],
    [{ reason: 'password_changed', userId: 'usr_r', keep: cookie }, [deep], [reader, admin]],
    [{ reason: 'password_changed', userId: 'usr_r' }, [reader, deep], [admin]],
    [{ reason: 'signed_out', credential: cookie }, [reader], [deep, admin]],
    [{ reason: 'token_revoked', credential: token }, [deep, admin, ownerOf('ses_1')], [reader]],
    [{ reason: 'role_changed', userId: 'usr_a' }, [admin], [reader, { ...admin, session: { id: 'ses_1', through: 'owner' } }]],
  ];
  it.each(cases)('%j ends what relied on it and nothing else', (end, ended, kept) => {
    for (const r of ended) expect(ends(end, r), JSON.stringify(r)).toBe(true);
    for (const r of kept) expect(ends(end, r), JSON.stringify(r)).toBe(false);
    // What another instance sends is read back as sent.
    expect(parseAccessEnd(JSON.parse(JSON.stringify(end)))).toEqual(end);
  });

  it('reads nothing that is not an end off the wire', () => {
    for (const wrong of [
      null,
      'share_revoked',
      { reason: 'share_revoked', sessionId: 'ses_1' },
      { reason: 'signed_out', credential: { kind: 'password', id: 'x' } },
      { reason: 'password_changed', userId: 'usr_r', keep: 'sgn_1' },
      { reason: 'everything', userId: 'usr_r' },
    ]) {
      expect(parseAccessEnd(wrong), JSON.stringify(wrong)).toBeUndefined();
    }
  });
});

/** A bus between instances in one process: what one publishes, the others hear. */
function bus(): { of: () => AccessBus; lose: () => void } {
  const listeners = new Set<(end: AccessEnd | undefined) => void>();
  const of = (): AccessBus => {
    const mine = new Set<(end: AccessEnd | undefined) => void>();
    return {
      publish: async (end) => {
        for (const l of listeners) if (!mine.has(l)) l(end);
      },
      subscribe: (l) => {
        mine.add(l);
        listeners.add(l);
        return () => listeners.delete(l);
      },
    };
  };
  const lose = () => {
    for (const l of listeners) l(undefined);
  };
  return { of, lose };
}

describe('AccessWatch', () => {
  it('aborts the holds an end takes away, with the reason, and keeps the rest', async () => {
    const watch = new AccessWatch();
    const r = watch.hold(reader, watch.now());
    const o = watch.hold(ownerOf('ses_1'), watch.now());
    await watch.end({ reason: 'share_revoked', sessionId: 'ses_1', userId: 'usr_r' });
    expect(r.signal.aborted).toBe(true);
    expect(r.signal.reason).toBeInstanceOf(AccessEnded);
    expect(r.signal.reason).toMatchObject({ reason: 'share_revoked', message: expect.stringMatching(/stopped sharing/) });
    expect(o.signal.aborted).toBe(false);
    expect(watch.holding).toBe(1);
    o.release();
    expect(watch.holding).toBe(0);
  });

  it('a hold taken after an end that came after its credentials were checked is aborted at once', async () => {
    let clock = 1000;
    const watch = new AccessWatch({ now: () => clock, rememberMs: 60_000 });
    const checkedAt = watch.now();
    clock += 5;
    await watch.end({ reason: 'password_reset', userId: 'usr_r' });
    clock += 5;
    // Checked after the end: it found the new state, so nothing is held against it.
    expect(watch.hold(deep, watch.now()).signal.aborted).toBe(false);
    // Checked before it: the request may have been let in by what the end took away.
    const late = watch.hold(deep, checkedAt);
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toMatchObject({ reason: 'password_reset' });
    // Forgotten once older than any check could be.
    clock += 60_001;
    expect(watch.hold(deep, checkedAt).signal.aborted).toBe(false);
  });

  it('ends travel to the other instances, and theirs come back', async () => {
    const wire = bus();
    const here = new AccessWatch({ bus: wire.of() });
    const there = new AccessWatch({ bus: wire.of() });
    const a = here.hold(reader, here.now());
    const b = there.hold(reader, there.now());
    await here.end({ reason: 'signed_out', credential: cookie });
    expect(a.signal.aborted).toBe(true);
    expect(b.signal.aborted).toBe(true);
    const c = here.hold(deep, here.now());
    await there.end({ reason: 'user_disabled', userId: 'usr_r' });
    expect(c.signal.reason).toMatchObject({ reason: 'user_disabled' });
    there.close();
    const d = there.hold(deep, there.now());
    await here.end({ reason: 'user_deleted', userId: 'usr_r' });
    expect(d.signal.aborted).toBe(false);
  });

  it('when ends may have gone unheard, each hold is checked again and ended if it no longer holds', async () => {
    const wire = bus();
    const watch = new AccessWatch({ bus: wire.of() });
    const good = vi.fn(async () => undefined);
    const gone = vi.fn(async () => 'access_revoked' as const);
    const kept = watch.hold(reader, watch.now(), good);
    const lost = watch.hold(deep, watch.now(), gone);
    wire.lose();
    await vi.waitFor(() => expect(lost.signal.aborted).toBe(true));
    expect(lost.signal.reason).toMatchObject({ reason: 'access_revoked' });
    expect(kept.signal.aborted).toBe(false);
    expect(good).toHaveBeenCalledTimes(1);
  });

  it('a publish that fails is reported, and the end still holds here', async () => {
    const onError = vi.fn();
    const watch = new AccessWatch({
      bus: { publish: async () => Promise.reject(new Error('no database')), subscribe: () => () => undefined },
      onError,
    });
    const h = watch.hold(deep, watch.now());
    await expect(watch.end({ reason: 'token_revoked', credential: token })).resolves.toBeUndefined();
    expect(h.signal.aborted).toBe(true);
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'no database' }));
  });
});
