import { describe, expect, it } from 'vitest';
import { gradeLocally, judgePrompt, readJudgement } from './graders.js';
import type { EvalQuestion } from './questions.js';

const q = (extra: Partial<EvalQuestion>): EvalQuestion => ({
  id: '1',
  question: 'Q?',
  reference: '42',
  grader: 'exact',
  ...extra,
});

describe('gradeLocally', () => {
  it('grades by the stated position, else by the whole text', () => {
    expect(gradeLocally(q({ reference: 'Canberra' }), { position: 'canberra.', text: 'Long text' })).toBe(true);
    expect(gradeLocally(q({ reference: 'Canberra' }), { text: 'Canberra' })).toBe(true);
    expect(gradeLocally(q({ reference: 'Canberra' }), { text: 'It is Canberra, of course.' })).toBe(false);
  });

  it('choice, number with tolerance, regular expression', () => {
    const choice = q({ grader: 'choice', choices: ['Venus', 'Mercury'], reference: 'B' });
    expect(gradeLocally(choice, { position: 'B) Mercury', text: '' })).toBe(true);
    expect(gradeLocally(choice, { position: 'Mercury', text: '' })).toBe(true);
    expect(gradeLocally(choice, { position: 'A', text: '' })).toBe(false);
    expect(gradeLocally(q({ grader: 'number', reference: '212', tolerance: 1 }), { position: '211.5 °F', text: '' })).toBe(true);
    expect(gradeLocally(q({ grader: 'number', reference: '212', tolerance: 1 }), { position: '210', text: '' })).toBe(false);
    expect(gradeLocally(q({ grader: 'number', reference: '5' }), { position: 'five', text: '' })).toBe(false);
    expect(gradeLocally(q({ grader: 'regex', reference: '^(iron|fe)$' }), { position: 'Iron', text: '' })).toBe(true);
    expect(gradeLocally(q({ grader: 'regex', reference: '^(iron|fe)$' }), { position: 'cast iron', text: '' })).toBe(false);
    expect(gradeLocally(q({ grader: 'judge' }), { text: 'x' })).toBeUndefined();
  });
});

describe('the judge', () => {
  it('is shown the question, the reference and the answer, and answers with one word', () => {
    const prompt = judgePrompt(q({ grader: 'judge', reference: 'Because of the lit half.' }), {
      text: 'We see its sunlit side.',
    });
    expect(prompt).toMatch(/^You are grading an answer against a reference\./);
    expect(prompt).toContain('Reference answer:\nBecause of the lit half.');
    expect(prompt).toContain('Answer to grade:\nWe see its sunlit side.\nEnd of the answer to grade.');
  });

  it('reads the last CORRECT or INCORRECT it gives', () => {
    expect(readJudgement('Reasoning…\nCORRECT')).toBe(true);
    expect(readJudgement('It is not correct.\n\nINCORRECT')).toBe(false);
    expect(readJudgement('At first INCORRECT, but on reflection: correct')).toBe(true);
    expect(readJudgement('I cannot tell.')).toBeUndefined();
  });
});
