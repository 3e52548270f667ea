import { describe, expect, it } from 'vitest';
import type { Session } from '../generated/types.gen.js';
import { paint } from '../terminal/terminal.js';
import { renderSession, sessionTable, statusPaint } from './session-view.js';

describe('a session as text', () => {
  it("prints each round's answers, inert, and a failed answer's code", () => {
    const session = {
      id: 'ses_1',
      mode: 'parallel',
      status: 'completed',
      createdAt: '2026-01-01T00:00:00Z',
      question: 'Tabs\u001b[2J or spaces?',
      rounds: [
        {
          number: 1,
          kind: 'answer',
          answers: [
            { slot: 1, provider: 'anthropic', text: ' Spaces.\u001b]0;owned\u0007 ' },
            { slot: 2, provider: 'openai', text: '', error: { code: 'timeout' } },
          ],
        },
      ],
    } as unknown as Session;
    expect(renderSession(session, paint(false))).toBe(
      'Tabs or spaces?\nses_1 · parallel · completed · 2026-01-01T00:00:00Z\n\nRound 1 · answer\n1 anthropic: Spaces.\n2 openai: failed (timeout)\n',
    );
  });

  it('says why a deep session did not complete, who was credited to no one, and how to get its verdict', () => {
    const session = {
      id: 'ses_2',
      mode: 'deep',
      status: 'partial',
      createdAt: '2026-01-01T00:00:00Z',
      question: 'Ship it?',
      endReason: 'quorum_not_met: round 2 had 0 answers, the quorum is 3',
      unmatchedLabels: [{ round: 2, reader: 3, statement: 'Ship small first', text: 'Response\u001b[2J Z' }],
      rounds: [{ number: 1, kind: 'independent', answers: [{ slot: 1, provider: 'anthropic', text: 'Yes.' }] }],
    } as unknown as Session;
    expect(renderSession(session, paint(false))).toBe(
      [
        'Ship it?',
        'ses_2 · deep · partial · 2026-01-01T00:00:00Z',
        'Did not complete: quorum_not_met: round 2 had 0 answers, the quorum is 3',
        '',
        'Round 1 · independent',
        '1 anthropic: Yes.',
        'Slot 3 credited "Ship small first" to "Response Z": no panel member, credited to no one',
        '',
        'No verdict. Synthesize one from the stored answers: consilium synthesize ses_2',
        '',
      ].join('\n'),
    );
  });

  it('pads the status for the list', () => {
    expect(statusPaint(paint(false), 'running')).toBe('running    ');
  });

  it('lists sessions under a header row, in columns', () => {
    const rows = [
      {
        id: 'ses_0123456789',
        status: 'completed',
        mode: 'deep',
        createdAt: '2026-01-01T00:00:00.000Z',
        question: 'Tabs or spaces?',
      },
      { id: 'ses_9', status: 'running', mode: 'parallel', createdAt: '2026-01-02T00:00:00.000Z', question: 'Why\u001b[2J?' },
    ] as Session[];
    expect(sessionTable(rows, paint(false)).split('\n')).toEqual([
      'ID              STATUS       MODE      CREATED                   QUESTION',
      'ses_0123456789  completed    deep      2026-01-01T00:00:00.000Z  Tabs or spaces?',
      'ses_9           running      parallel  2026-01-02T00:00:00.000Z  Why?',
      '',
    ]);
  });
});
