// Names each documented module by the path a consumer imports it from, not by its file.
import { Converter, PageEvent, ReflectionKind } from 'typedoc';

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
  // The server serves this reference at /docs/sdk/ under `script-src 'self'`: typedoc's one inline script (it picks
  // the stored theme and hides the page until its scripts ran) would be refused there, so the page follows the
  // system's theme without it and shows at once.
  app.renderer.on(PageEvent.END, (page) => {
    if (!page.contents) return;
    page.contents = withoutInlineScripts(page.contents);
  });
}

/** @param {string} html a rendered page */
export function withoutInlineScripts(html) {
  return html.replace(/<script>[^<]*<\/script>/g, '').replace('<html class="default"', '<html class="default" data-theme="os"');
}
