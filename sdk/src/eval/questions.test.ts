import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { askedQuestion, choiceIndex, EvalInputError, numberIn, parseQuestions } from './questions.js';

describe('parseQuestions', () => {
  it('reads the example set that ships with the package, every grader in it', () => {
    const questions = parseQuestions(readFileSync(new URL('../../examples/eval.jsonl', import.meta.url), 'utf8'));
    expect(questions.length).toBeGreaterThanOrEqual(10);
    expect(new Set(questions.map((q) => q.grader))).toEqual(new Set(['exact', 'choice', 'number', 'regex', 'judge']));
    expect(questions.find((q) => q.id === 'boiling-f')).toMatchObject({ grader: 'number', tolerance: 1 });
  });

  it('fills in ids and graders, and skips blank and comment lines', () => {
    const qs = parseQuestions(
      '# set\n\n{"question":"Q?","reference":"A"}\n{"question":"Pick","choices":["x","y"],"reference":"y"}\n',
    );
    expect(qs).toEqual([
      { id: '3', question: 'Q?', reference: 'A', grader: 'exact' },
      { id: '4', question: 'Pick', reference: 'y', choices: ['x', 'y'], grader: 'choice' },
    ]);
  });

  it('says on which line a set goes wrong, and why', () => {
    const bad: [string, RegExp][] = [
      ['{"question": "Q?"', /^line 1: not JSON/],
      ['[1]', /^line 1: not a JSON object/],
      ['{"question":"Q?","reference":"A","extra":1}', /unknown field "extra"/],
      ['{"question":"","reference":"A"}', /"question" must be a non-empty string/],
      ['{"question":"Q?","reference":"A","grader":"fuzzy"}', /"grader" must be one of/],
      ['{"question":"Q?","reference":"Z","choices":["a","b"]}', /"reference" must name one of the choices/],
      ['{"question":"Q?","reference":"x","grader":"number"}', /"reference" must be a number/],
      ['{"question":"Q?","reference":"1","tolerance":1}', /"tolerance" is a number ≥ 0, for the number grader/],
      ['{"question":"Q?","reference":"(","grader":"regex"}', /the pattern does not compile/],
      ['{"question":"Q?","reference":"A","judge":2}', /"judge" is a slot number/],
      [
        '{"id":"a","question":"Q?","reference":"A"}\n{"id":"a","question":"R?","reference":"B"}',
        /^line 2: the id "a" is used twice/,
      ],
      ['\n# nothing\n', /no question/],
    ];
    for (const [text, message] of bad) {
      expect(() => parseQuestions(text), text).toThrow(EvalInputError);
      expect(() => parseQuestions(text), text).toThrow(message);
    }
  });
});

describe('choices and numbers', () => {
  it('asks a choice question with its choices by letter', () => {
    expect(askedQuestion({ id: '1', question: 'Pick one.', reference: 'B', choices: ['x', 'y'], grader: 'choice' })).toBe(
      'Pick one.\n\nA) x\nB) y\n\nAnswer with the letter of one choice.',
    );
  });

  it('reads the choice an answer names, by letter or by text', () => {
    const choices = ['Venus', 'Mercury', 'Mars'];
    expect(choiceIndex('B', choices)).toBe(1);
    expect(choiceIndex('(b)', choices)).toBe(1);
    expect(choiceIndex('B) Mercury', choices)).toBe(1);
    expect(choiceIndex('mercury.', choices)).toBe(1);
    expect(choiceIndex('A lot of planets', choices)).toBeUndefined();
    expect(choiceIndex('D', choices)).toBeUndefined();
  });

  it('reads the first number of a text', () => {
    expect(numberIn('about 1,234.5 km')).toBe(1234.5);
    expect(numberIn('-3 degrees')).toBe(-3);
    expect(numberIn('42%')).toBe(42);
    expect(numberIn('none')).toBeUndefined();
  });
});
