import { doNotEditHeader, type JsonObject, type OpenApiDocument } from './contract.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
const SCHEMA_REF = '#/components/schemas/';

/** hey-api's naming: `askProvider` + `Body` → `zAskProviderBody`. */
const pascal = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const literal = (value: unknown): string => JSON.stringify(value, null, 2);
const indent = (text: string, by: string): string => text.replaceAll('\n', `\n${by}`);

export interface Operation {
  method: (typeof METHODS)[number];
  path: string;
  operationId: string;
  spec: JsonObject;
}

export function listOperations(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const spec = item[method];
      if (!spec) continue;
      const operationId = spec.operationId;
      if (typeof operationId !== 'string') throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      if ('parameters' in item) throw new Error(`${path}: path-level parameters are not supported; declare them per operation`);
      operations.push({ method, path, operationId, spec });
    }
  }
  return operations;
}

/** A schema as TypeScript: a named component becomes its zod schema, anything else stays JSON. */
function schemaExpr(schema: unknown): string {
  const ref = (schema as JsonObject | undefined)?.$ref;
  if (typeof ref === 'string' && ref.startsWith(SCHEMA_REF)) return `s.z${ref.slice(SCHEMA_REF.length)}`;
  return literal(schema);
}

function contentExpr(content: Record<string, JsonObject>, schemaFor: (mediaType: string, media: JsonObject) => string): string {
  const entries = Object.entries(content).map(([mediaType, media]) => {
    const rest = Object.entries(media)
      .filter(([key]) => key !== 'schema')
      .map(([key, value]) => `${key}: ${literal(value)}`);
    return `${JSON.stringify(mediaType)}: { ${[`schema: ${schemaFor(mediaType, media)}`, ...rest].join(', ')} }`;
  });
  return `{\n  ${entries.map((e) => indent(e, '  ')).join(',\n  ')}\n}`;
}

type Scalar = 'number' | 'integer' | 'boolean';

/** The scalar type of a parameter's schema, following one `$ref` into the components. */
function scalarType(doc: OpenApiDocument, schema: JsonObject | undefined): Scalar | undefined {
  const ref = schema?.$ref;
  const resolved = typeof ref === 'string' ? doc.components.schemas[ref.slice(SCHEMA_REF.length)] : schema;
  const type = resolved?.type;
  return type === 'number' || type === 'integer' || type === 'boolean' ? type : undefined;
}

function requestExpr(doc: OpenApiDocument, op: Operation): string | undefined {
  const parts: string[] = [];
  const params = (op.spec.parameters ?? []) as JsonObject[];
  if (params.some((p) => p.$ref !== undefined)) {
    throw new Error(`${op.operationId}: $ref parameters are not supported; write parameters inline`);
  }
  const name = pascal(op.operationId);
  const locations = {
    path: ['params', 'Path'],
    query: ['query', 'Query'],
    header: ['headers', 'Headers'],
    cookie: ['cookies', 'Cookies'],
  };
  for (const [location, [field, suffix]] of Object.entries(locations)) {
    const here = params.filter((p) => p.in === location);
    if (here.length === 0) continue;
    // Path, query and header values arrive as strings; numbers and booleans are converted first.
    const scalars = Object.fromEntries(
      here.flatMap((p) => {
        const type = scalarType(doc, p.schema as JsonObject | undefined);
        return type ? [[p.name as string, type]] : [];
      }),
    );
    const schema = `s.z${name}${suffix}`;
    const converted = Object.entries(scalars).map(
      ([key, type]) => `${JSON.stringify(key)}: z.preprocess(fromString('${type}'), ${schema}.shape[${JSON.stringify(key)}])`,
    );
    parts.push(`${field}: ${converted.length ? `${schema}.extend({ ${converted.join(', ')} })` : schema}`);
  }
  const body = op.spec.requestBody as JsonObject | undefined;
  if (body) {
    const { content, ...rest } = body as { content: Record<string, JsonObject> };
    const fields = Object.entries(rest).map(([key, value]) => `${key}: ${literal(value)}`);
    fields.push(
      `content: ${indent(
        contentExpr(content, () => `s.z${name}Body`),
        '  ',
      )}`,
    );
    parts.push(`body: {\n    ${fields.map((f) => indent(f, '  ')).join(',\n    ')}\n  }`);
  }
  return parts.length ? `{\n  ${parts.map((p) => indent(p, '  ')).join(',\n  ')}\n}` : undefined;
}

function responsesExpr(op: Operation): string {
  const responses = op.spec.responses as Record<string, JsonObject>;
  const entries = Object.entries(responses).map(([status, response]) => {
    // Numeric keys: Hono types a handler's responses only for numeric status codes.
    const key = /^\d+$/.test(status) ? status : JSON.stringify(status);
    if (typeof response.$ref === 'string') return `${key}: ${literal(response)}`;
    const { content, ...rest } = response as { content?: Record<string, JsonObject> };
    const fields = Object.entries(rest).map(([key, value]) => `${key}: ${literal(value)}`);
    if (content)
      fields.push(
        `content: ${indent(
          contentExpr(content, (_, media) => schemaExpr(media.schema)),
          '  ',
        )}`,
      );
    return `${key}: {\n  ${fields.map((f) => indent(f, '  ')).join(',\n  ')}\n}`;
  });
  return `{\n  ${entries.map((e) => indent(e, '  ')).join(',\n  ')}\n}`;
}

function routeExpr(doc: OpenApiDocument, op: Operation): string {
  const fields = [`method: ${JSON.stringify(op.method)}`, `path: ${JSON.stringify(op.path)}`];
  for (const [key, value] of Object.entries(op.spec)) {
    if (key === 'parameters' || key === 'requestBody' || key === 'responses') continue;
    // Widened: createRoute's `const` inference reads role lists as readonly tuples, which its
    // mutable `string[]` rejects, and then loses the whole route's type.
    if (key === 'security') fields.push(`security: ${literal(value)} as Record<string, string[]>[]`);
    else fields.push(`${key}: ${literal(value)}`);
  }
  const request = requestExpr(doc, op);
  if (request) fields.push(`request: ${request}`);
  fields.push(`responses: ${responsesExpr(op)}`);
  return `createRoute({\n  ${fields.map((f) => indent(f, '  ')).join(',\n  ')}\n})`;
}

/**
 * Each operation's security requirements, its own or else the document's: what the server enforces,
 * so an operation added to the contract is guarded the moment it exists. An empty list means public.
 */
function securityTable(doc: OpenApiDocument, operations: Operation[]): string[] {
  const fallback = (doc as { security?: unknown }).security ?? [];
  const rows = operations.map((op) => {
    const security = op.spec.security ?? fallback;
    if (!Array.isArray(security)) throw new Error(`${op.operationId}: security must be a list of requirements`);
    const method = JSON.stringify(op.method.toUpperCase());
    return `  ${op.operationId}: { method: ${method}, path: ${JSON.stringify(op.path)}, security: ${JSON.stringify(security)} },`;
  });
  return [
    '/** A security requirement: every scheme it names must hold; the list after a scheme names the roles it demands. */',
    'export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;',
    '',
    '/** Where an operation lives and what it demands: any one of `security` (none at all: public). */',
    'export interface OperationSecurity {',
    '  method: string;',
    '  path: string;',
    '  security: readonly SecurityRequirement[];',
    '}',
    '',
    "/** Every operation's security, its own or the document's default. The server enforces this table. */",
    'export const operationSecurity: Record<keyof typeof routes, OperationSecurity> = {',
    ...rows,
    '};',
  ];
}

/**
 * Emits `@hono/zod-openapi` routes bound to the SDK's generated zod schemas, with every component
 * named so the server's document uses `$ref` exactly where the contract does.
 */
export function emitRoutes(doc: OpenApiDocument, zodModule: string): string {
  const operations = listOperations(doc);
  const { schemas, ...otherComponents } = doc.components;
  const names = Object.entries(schemas).map(([name, schema]) => {
    const internal = 'oneOf' in schema ? `, { unionPreferredType: 'oneOf' }` : '';
    return `name(s.z${name}, ${JSON.stringify(name)}${internal});`;
  });
  const { paths: _paths, components: _components, ...documentFields } = doc;
  const lines = [
    ...doNotEditHeader('openapi/openapi.yaml via generator/src/routes.ts'),
    '',
    "import { zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';",
    "import { createRoute, type OpenAPIHono, type RouteHandler } from '@hono/zod-openapi';",
    "import type { Env } from 'hono';",
    "import { type ZodType, z } from 'zod';",
    `import * as s from '${zodModule}';`,
    '',
    '/** Names a schema in place, so every use of it (nested ones too) becomes a `$ref`. */',
    "function name(schema: ZodType, refId: string, internal: { unionPreferredType?: 'oneOf' } = {}): void {",
    '  const current = zodToOpenAPIRegistry.get(schema) ?? {};',
    '  zodToOpenAPIRegistry.add(schema, { ...current, _internal: { ...current._internal, ...internal, refId } });',
    '}',
    '',
    '/** Path, query and header values arrive as strings: convert the numeric and boolean ones, and leave',
    ' * anything unconvertible for zod to reject with its usual message. */',
    "function fromString(type: 'number' | 'integer' | 'boolean'): (value: unknown) => unknown {",
    '  return (value) => {',
    "    if (typeof value !== 'string') return value;",
    "    if (type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;",
    '    return /^-?\\d+(\\.\\d+)?$/.test(value) ? Number(value) : value;',
    '  };',
    '}',
    '',
    ...names,
    '',
    '/** The document fields that are not paths or components. */',
    "// A cast: zod-openapi types this config with OpenAPI 3.0's objects, which lack 3.1 fields such as `license.identifier`.",
    `export const documentFields = ${literal(documentFields)} as Parameters<OpenAPIHono['getOpenAPI31Document']>[0];`,
    '',
    ...operations.map((op) => `export const ${op.operationId} = ${indent(routeExpr(doc, op), '')};\n`),
    '/** Every operation in the contract, by operationId. */',
    `export const routes = { ${operations.map((op) => op.operationId).join(', ')} } as const;`,
    '',
    ...securityTable(doc, operations),
    '',
    "/** The contract's component schemas, by name. */",
    `const componentSchemas: Record<string, ZodType> = { ${Object.keys(schemas)
      .map((n) => `${JSON.stringify(n)}: s.z${n}`)
      .join(', ')} };`,
    '',
    '/** One handler per operation: leaving one out is a type error. */',
    'export type Handlers<E extends Env = Env> = {',
    ...operations.map((op) => `  ${op.operationId}: RouteHandler<typeof ${op.operationId}, E>;`),
    '};',
    '',
    "/** Registers the contract's components and every operation on `app`. */",
    'export function registerContract<E extends Env>(app: OpenAPIHono<E>, handlers: Handlers<E>): void {',
    '  // Every component schema, including those only reached through a response component. `register()`',
    '  // would copy each via `.openapi()`, which zod 4 instances created before @hono/zod-openapi loaded',
    '  // lack; hand it the schema itself, already named above.',
    `  for (const [refId, schema] of Object.entries(componentSchemas)) {`,
    '    app.openAPIRegistry.register(refId, { openapi: () => schema } as unknown as ZodType);',
    '  }',
    ...Object.entries(otherComponents).flatMap(([type, entries]) =>
      Object.entries(entries as JsonObject).map(
        ([n, value]) =>
          `  app.openAPIRegistry.registerComponent(${JSON.stringify(type)}, ${JSON.stringify(n)}, ${indent(literal(value), '  ')});`,
      ),
    ),
    ...operations.map((op) => `  app.openapi(${op.operationId}, handlers.${op.operationId});`),
    '}',
    '',
  ];
  return lines.join('\n');
}
