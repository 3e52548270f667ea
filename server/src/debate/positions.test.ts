import { describe, expect, it } from 'vitest';
import { cleanPosition, positionKey, readPosition } from './positions.js';

describe('readPosition', () => {
  it('reads the last POSITION line as real models write it', () => {
    expect(readPosition('Long reasoning.\n\nPOSITION: 42')).toBe('42');
    expect(readPosition('Reasoning.\n**POSITION:** Use PostgreSQL.')).toBe('Use PostgreSQL');
    expect(readPosition('Reasoning.\n- Position: "B"')).toBe('B');
    expect(readPosition('Reasoning.\n> `POSITION: yes`\n\nHope this helps!')).toBe('yes');
    expect(readPosition('POSITION： Paris')).toBe('Paris');
  });

  it('reads the line however it is spaced, and across any line ending', () => {
    expect(readPosition('Reasoning.\nPOSITION:42')).toBe('42');
    expect(readPosition('Reasoning.\nPOSITION : 42')).toBe('42');
    expect(readPosition('Reasoning.\rPOSITION: 42')).toBe('42');
    expect(readPosition('Reasoning.\r\nPOSITION: 42\r\n')).toBe('42');
    expect(readPosition('POSITION: 42\n \n \n\t\n \n \n')).toBe('42');
    expect(readPosition('POSITION: 3.14')).toBe('3.14');
  });

  it('reads no position from a line that only mentions the word', () => {
    expect(readPosition('Reasoning.\nMy position: 42')).toBeUndefined();
    expect(readPosition('Reasoning.\nPosition paper: see above')).toBeUndefined();
  });

  it('takes the last of several, and only near the end', () => {
    expect(readPosition('POSITION: 41\nmore\nPOSITION: 42')).toBe('42');
    expect(readPosition('POSITION: 41\none\ntwo\nthree\nfour\nfive')).toBeUndefined();
  });

  it('reads no position from a critique line, an empty line or none', () => {
    expect(readPosition('Text.\nPOSITION: unchanged')).toBeUndefined();
    expect(readPosition('Text.\nPOSITION: changed')).toBeUndefined();
    expect(readPosition('Text.\nPOSITION: ')).toBeUndefined();
    // A position whose words merely include the critique's word is a position.
    expect(readPosition('Text.\nPOSITION: Nothing changed')).toBe('Nothing changed');
    expect(readPosition('Text.\nPOSITION: Changed nothing')).toBe('Changed nothing');
    expect(readPosition('No line here.')).toBeUndefined();
    expect(readPosition('')).toBeUndefined();
  });

  it('keeps a long position bounded', () => {
    expect(readPosition(`POSITION: ${'x'.repeat(500)}`)).toBe(`${'x'.repeat(199)}…`);
    expect(readPosition(`POSITION: ${'x'.repeat(200)}`)).toBe('x'.repeat(200));
  });
});

describe('positionKey', () => {
  it('compares positions as the consensus compares statements', () => {
    expect(positionKey('Use PostgreSQL.')).toBe(positionKey('use  postgresql'));
    expect(positionKey('**42**')).toBe(positionKey('42'));
    expect(positionKey('“Paris”')).toBe(positionKey('paris!'));
    expect(positionKey('41')).not.toBe(positionKey('42'));
  });

  it('cleans wrapping quotes and emphasis, not inner text', () => {
    expect(cleanPosition(' *"a b"* ')).toBe('a b');
    expect(cleanPosition("it's fine.")).toBe("it's fine");
    expect(cleanPosition('a   b\tc')).toBe('a b c');
  });
});
