import { createRequire } from 'node:module';
import type * as TS from 'typescript';

const PURE = '/* @__PURE__ */ ';

/**
 * Marks every call on the zod namespace of a generated schema file (`z.object(…)`, `z.int().check(…)`,
 * `z.iso.datetime()`) with `@__PURE__`, so a consumer's bundler drops each schema it does not use.
 * Without it a bundler must keep every top-level `z.…()` call of the file (a call may have side
 * effects): a debate stream carried every schema of the contract, users and tokens included.
 * Only calls whose callee chain starts at the namespace imported from `zod/mini` are marked; zod/mini
 * builds schemas without touching anything global (no registry, no metadata), so each is pure.
 *
 * TypeScript is loaded by `require()`: generation has loaded it already (openapi-typescript, see paths.ts).
 */
export function markZodCallsPure(text: string, file = 'zod.gen.ts'): string {
  const ts = createRequire(import.meta.url)('typescript') as typeof TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const namespaces = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (statement.moduleSpecifier.text === 'zod/mini' && bindings && ts.isNamespaceImport(bindings))
      namespaces.add(bindings.name.text);
  }
  /** The identifier a callee chain starts at: `z` for `z.int().check`, `z.iso.datetime`. */
  const root = (expression: TS.Expression): TS.Expression => {
    let e = expression;
    while (ts.isPropertyAccessExpression(e) || ts.isCallExpression(e)) e = e.expression;
    return e;
  };
  const starts: number[] = [];
  const visit = (node: TS.Node): void => {
    if (ts.isCallExpression(node)) {
      const from = root(node.expression);
      if (ts.isIdentifier(from) && namespaces.has(from.text)) starts.push(node.getStart(source));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  // A chain's calls start at the same place (`z.int()` and `z.int().check(…)`): one mark each.
  let out = '';
  let at = 0;
  for (const start of starts.sort((a, b) => a - b)) {
    out += text.slice(at, start) + PURE;
    at = start;
  }
  return out + text.slice(at);
}

/**
 * The top-level constants of a generated schema file that `names` reach (themselves included): what a
 * bundle that uses only `names` needs of the file. Tests compare it with what a bundler keeps.
 */
export function schemasReachedFrom(text: string, names: readonly string[], file = 'zod.gen.ts'): Set<string> {
  const ts = createRequire(import.meta.url)('typescript') as typeof TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const uses = new Map<string, Set<string>>();
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name) || !declaration.initializer) continue;
      const used = new Set<string>();
      const visit = (node: TS.Node): void => {
        if (ts.isIdentifier(node)) used.add(node.text);
        ts.forEachChild(node, visit);
      };
      visit(declaration.initializer);
      uses.set(declaration.name.text, used);
    }
  }
  const reached = new Set<string>();
  const queue = names.filter((name) => uses.has(name));
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    if (reached.has(name)) continue;
    reached.add(name);
    for (const used of uses.get(name)!) if (uses.has(used) && !reached.has(used)) queue.push(used);
  }
  return reached;
}
