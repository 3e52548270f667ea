// Names each documented module by the path a consumer imports it from, not by its file.
import { Converter, ReflectionKind } from 'typedoc';

/** @param {string} name the module name typedoc derived from the file path */
export function importPath(name) {
  if (name === 'index') return '@consilium/sdk';
  if (name === 'wiki' || name === 'wiki/index') return '@consilium/sdk/wiki';
  const generated = /^generated\/wiki\/([\w-]+)$/.exec(name);
  if (generated) return `@consilium/sdk/wiki/modules/${generated[1]}`;
  return name;
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (_context, reflection) => {
    if (reflection.kindOf(ReflectionKind.Module)) reflection.name = importPath(reflection.name);
  });
}
