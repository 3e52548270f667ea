/**
 * The table of every built-in type: what `typeDefFor`, `withAllTypes` and the registry's
 * `validateParam` resolve to, against the core alone (which knows only the cheap types).
 */
import { describe, expect, it } from 'vitest';
import type { ParamInfo, TypeDef } from '../types.js';
import { BOOLEAN_WORDS_TYPE, CORE_DEFS, validateParam as coreValidateParam } from './core.js';
import { TYPE_DEFS, typeDefFor, validateParam, withAllTypes } from './registry.js';
import { timestampDef } from './timestamp.js';
import { titleDef } from './title.js';
import { booleanWordsDef, enumDef, passThroughDef } from './typedefs.js';
import { userDef } from './user.js';

const p = (type: ParamInfo['type'], extra: Partial<ParamInfo> = {}): ParamInfo => ({ name: 'foo', type, ...extra });

describe('TYPE_DEFS', () => {
  it('is the core types plus timestamp, user, title and the REST boolean, frozen', () => {
    expect(Object.keys(TYPE_DEFS).sort()).toEqual(
      [...Object.keys(CORE_DEFS), BOOLEAN_WORDS_TYPE, 'timestamp', 'title', 'user'].sort(),
    );
    for (const [name, def] of Object.entries(CORE_DEFS)) expect(TYPE_DEFS[name], name).toBe(def);
    expect(TYPE_DEFS.timestamp).toBe(timestampDef);
    expect(TYPE_DEFS.user).toBe(userDef);
    expect(TYPE_DEFS.title).toBe(titleDef);
    expect(TYPE_DEFS[BOOLEAN_WORDS_TYPE]).toBe(booleanWordsDef);
    expect(Object.isFrozen(TYPE_DEFS)).toBe(true);
  });
});

describe('typeDefFor', () => {
  it('resolves built-in types, enums by their list, custom ones first, unknown ones to pass-through', () => {
    expect(typeDefFor(p('timestamp'))).toBe(timestampDef);
    expect(typeDefFor(p(BOOLEAN_WORDS_TYPE as ParamInfo['type']))).toBe(booleanWordsDef);
    expect(typeDefFor(p(['a', 'b']))).toBe(enumDef);
    expect(typeDefFor(p('expiry'))).toBe(passThroughDef);
    const custom: TypeDef = { validate: (v) => v };
    expect(typeDefFor(p('timestamp'), { timestamp: custom })).toBe(custom);
    expect(typeDefFor(p('user'), { timestamp: custom })).toBe(userDef);
  });
});

describe('validateParam (every built-in type)', () => {
  it('validates the types the core alone does not know', () => {
    expect(validateParam(p('user'), 'foo_bar', { param: 'xxuser' }).value).toBe('Foo bar');
    expect(validateParam(p('title'), 'main_Page', { param: 'xxtitle' }).value).toBe('Main Page');
    expect(validateParam(p(BOOLEAN_WORDS_TYPE as ParamInfo['type']), 'Yes', { param: 'xxb' }).value).toBe(true);
    expect(validateParam(p('timestamp'), '2024-06-01T00:00:00Z', { param: 'xxts' }).value).toBe('2024-06-01T00:00:00Z');
    // The core alone refuses to guess what they are.
    for (const type of ['timestamp', 'user', 'title', BOOLEAN_WORDS_TYPE]) {
      expect(() => coreValidateParam(p(type as ParamInfo['type']), 'foo', { param: 'xx' }), type).toThrow(TypeError);
    }
  });

  it('uses every built-in type whatever `types` the context gives; `typeDefs` still come first', () => {
    const upper: TypeDef = { validate: (v) => v.toUpperCase() };
    expect(validateParam(p('user'), 'foo', { param: 'xxuser', types: { user: upper } }).value).toBe('Foo');
    expect(validateParam(p('user'), 'foo', { param: 'xxuser', typeDefs: { user: upper } }).value).toBe('FOO');
    expect(validateParam(p('user'), 'foo', { param: 'xxuser', types: TYPE_DEFS }).value).toBe('Foo');
  });
});

describe('withAllTypes', () => {
  it('is the table itself when nothing is added, else the table with the given entries winning', () => {
    expect(withAllTypes(undefined)).toBe(TYPE_DEFS);
    expect(withAllTypes(TYPE_DEFS)).toBe(TYPE_DEFS);
    const custom: TypeDef = { validate: (v) => v };
    const merged = withAllTypes({ user: custom, mine: custom });
    expect(merged.user).toBe(custom);
    expect(merged.mine).toBe(custom);
    expect(merged.title).toBe(titleDef);
    expect(Object.keys(merged).length).toBe(Object.keys(TYPE_DEFS).length + 1);
    expect(withAllTypes({})).toEqual(TYPE_DEFS);
  });
});
