import { describe, expect, it } from 'vitest';
import {
  canRedraw,
  escapeJson,
  inert,
  jsonLine,
  oneLine,
  paint,
  tail,
  terminalColumns,
  visibleControls,
  wantsColour,
} from './terminal.js';

describe('inert', () => {
  it('removes escape sequences a model could use to take over the terminal', () => {
    const hostile = [
      'a\u001b[2J\u001b[H', // clear screen, cursor home
      '\u001b]0;owned\u0007', // window title (OSC … BEL)
      '\u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\', // hyperlink (OSC … ST)
      '\u001bP+q\u001b\\', // DCS
      '\u009b31m', // 8-bit CSI
      '\u001b[31mred\u001b[0m',
      'b\rc', // carriage return: overwrite the line
      '\u0007\u0008\u007f', // bell, backspace, DEL
      '\u202eevil\u202c', // bidi override
    ].join('');
    const out = inert(hostile);
    expect(out).toBe('alinkredbcevil');
    const controls = [...out].filter((ch) => /[\p{Cc}\p{Cf}]/u.test(ch) && ch !== '\t' && ch !== '\n');
    expect(controls).toEqual([]);
  });

  it('keeps text, tabs, newlines and non-ASCII as they are', () => {
    expect(inert('Hello\tworld\nnaïve — 日本 🎉')).toBe('Hello\tworld\nnaïve — 日本 🎉');
    expect(oneLine('a\n\tb  c')).toBe('a b c');
  });
});

describe('colour', () => {
  it('only on a TTY, never with NO_COLOR, TERM=dumb or --no-color', () => {
    expect(wantsColour(true, {}, undefined)).toBe(true);
    expect(wantsColour(false, {}, undefined)).toBe(false);
    expect(wantsColour(true, { NO_COLOR: '1' }, undefined)).toBe(false);
    expect(wantsColour(true, { NO_COLOR: '' }, undefined)).toBe(true);
    expect(wantsColour(true, { TERM: 'dumb' }, undefined)).toBe(false);
    expect(wantsColour(true, {}, false)).toBe(false);
    expect(paint(true)('red', 'x')).toBe('\u001b[31mx\u001b[39m');
    expect(paint(false)('red', 'x')).toBe('x');
  });

  it('tail keeps the end of the text within the width', () => {
    expect(tail('short', 10)).toBe('short');
    expect(tail('0123456789abcdef', 8)).toBe('…9abcdef');
  });
});

describe('escapeJson', () => {
  it('escapes what JSON.stringify leaves raw but a terminal acts on, keeping the data', () => {
    const value = { text: 'a\u202eb\u009b2Jc\u0085d\u007fe\u2028f\u2066g', plain: 'é ✓ \u00a0' };
    const line = jsonLine(value);
    expect(line).toBe('{"text":"a\\u202eb\\u009b2Jc\\u0085d\\u007fe\\u2028f\\u2066g","plain":"é ✓ \u00a0"}\n');
    expect(JSON.parse(line)).toEqual(value);
    const pretty = JSON.stringify(value, null, 2);
    expect(JSON.parse(escapeJson(pretty))).toEqual(value);
  });
});

describe('the terminal', () => {
  it('is 80 columns when it reports 0 or nothing', () => {
    expect(terminalColumns(0)).toBe(80);
    expect(terminalColumns(undefined)).toBe(80);
    expect(terminalColumns(132)).toBe(132);
  });

  it('is redrawn in place only on a TTY that is not TERM=dumb', () => {
    expect(canRedraw(true, { TERM: 'xterm' })).toBe(true);
    expect(canRedraw(true, { TERM: 'dumb' })).toBe(false);
    expect(canRedraw(false, {})).toBe(false);
  });
});

describe('visibleControls', () => {
  it('shows every character inert removes as a visible mark, and nothing else changes', () => {
    const text = 'access \u202eedoc_terces\u202c granted\u001b[2J\r\u0007\u007f\u009b\u2066x\u2069\tok\né';
    const shown = visibleControls(text);
    expect(shown).toBe('access ⟨U+202E⟩edoc_terces⟨U+202C⟩ granted␛[2J␍␇␡⟨U+009B⟩⟨U+2066⟩x⟨U+2069⟩\tok\né');
    // Nothing the terminal's `inert` would remove is left.
    expect(inert(shown)).toBe(shown);
  });
});
