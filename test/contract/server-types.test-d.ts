/**
 * The server's routes (zod schemas bound by `server/src/generated/routes.ts`) against
 * openapi-typescript's independent reading of the same contract: for every operation its request
 * body, path/query/header parameters and 2xx bodies, and the handler table's operation names.
 */
import { describe, expectTypeOf, test } from 'vitest';
import type { z } from 'zod';
import type { Handlers, routes } from '../../server/src/generated/routes.js';
import type { operations } from '../generated/openapi-paths.js';
import type {
  BodyDefaults,
  DefaultedKeys,
  DocParams,
  DocRequestBody,
  DocRequestBodyInput,
  DocSuccessBodies,
  NoContent,
  OperationId,
  QueryDefaults,
  SuccessStatus,
  WithRequired,
} from './openapi-types.js';

type Route<K extends OperationId> = (typeof routes)[K];
type RouteRequest<K extends OperationId> = Route<K> extends { request: infer R } ? R : Record<never, never>;

/** The zod schema at `request.params`, `.query` or `.headers`; never when the route has none. */
type ParamSchema<K extends OperationId, In extends 'params' | 'query' | 'headers'> = In extends keyof RouteRequest<K>
  ? RouteRequest<K>[In]
  : never;
/** The zod schema of the request body (any media type); never when the route takes no body. */
type BodySchema<K extends OperationId> =
  RouteRequest<K> extends { body: { content: infer C } }
    ? { [M in keyof C]: C[M] extends { schema: infer S } ? S : never }[keyof C]
    : never;
type BodyRequired<K extends OperationId> = RouteRequest<K> extends { body: { required: true } } ? true : false;

type Input<S> = S extends z.ZodType ? z.input<S> : never;
type Output<S> = S extends z.ZodType ? z.output<S> : never;

/** A schema as a type. The generator writes a non-component schema as a JSON Schema literal, not zod; the contract's only one is `{ type: 'string' }`. */
type SchemaType<S> = S extends z.ZodType ? z.infer<S> : S extends { type: 'string' } ? string : unknown;
/** A route response's body: the union over its media types; `NoContent` for a 204 without content (as in `ResponseBody`). */
type RouteBody<R, Status> = R extends { content: infer C }
  ? { [M in keyof C]: C[M] extends { schema: infer S } ? SchemaType<S> : never }[keyof C]
  : [Status] extends [204]
    ? NoContent
    : unknown;
type RouteSuccessBodies<K extends OperationId> = {
  [S in Extract<keyof Route<K>['responses'], SuccessStatus>]: RouteBody<Route<K>['responses'][S], S>;
};

/** Keys optional on input but present on output: the fields a zod `.default()` fills in. */
type OptionalKeys<T> = { [P in keyof T]-?: Record<never, never> extends Pick<T, P> ? P : never }[keyof T];
type Defaulted<S> = S extends z.ZodType ? Exclude<OptionalKeys<z.input<S>>, OptionalKeys<z.output<S>>> : never;

/** A table with an entry for every operation: one assertion covers them all, and a mismatch is reported under the operation's name. */
type Each<F extends { [K in OperationId]: unknown }> = { [K in OperationId]: F[K] };

/**
 * A kind of parameter as the route sees it: one object, never when absent. The document wraps it
 * in `?:` (so `| undefined`) whenever no parameter of that kind is required.
 */
type DocParamObject<K extends OperationId, In extends 'path' | 'query' | 'header'> = NonNullable<DocParams<K, In>>;

describe('every operation', () => {
  test('the route table and the Handlers type have exactly the operations of the document', () => {
    expectTypeOf<keyof Handlers>().toEqualTypeOf<keyof operations>();
    expectTypeOf<keyof typeof routes>().toEqualTypeOf<keyof operations>();
  });

  test('each route declares the same response statuses', () => {
    expectTypeOf<Each<{ [K in OperationId]: keyof Route<K>['responses'] }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: keyof operations[K]['responses'] }>
    >();
  });

  test('request bodies: required alike; z.input is what a client may send, z.output what the handler gets', () => {
    expectTypeOf<Each<{ [K in OperationId]: BodyRequired<K> }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: undefined extends operations[K]['requestBody'] ? false : true }>
    >();
    // Defaulted fields are optional on input (`DocRequestBodyInput`, see `BodyDefaults`) ...
    expectTypeOf<Each<{ [K in OperationId]: Input<BodySchema<K>> }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: NonNullable<DocRequestBodyInput<K>> }>
    >();
    // ... and present on output, which is exactly openapi-typescript's reading.
    expectTypeOf<Each<{ [K in OperationId]: Output<BodySchema<K>> }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: NonNullable<DocRequestBody<K>> }>
    >();
  });

  test('path parameters', () => {
    expectTypeOf<Each<{ [K in OperationId]: Output<ParamSchema<K, 'params'>> }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: DocParamObject<K, 'path'> }>
    >();
    expectTypeOf<Each<{ [K in OperationId]: Input<ParamSchema<K, 'params'>> }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: DocParamObject<K, 'path'> }>
    >();
  });

  test('query parameters, once parsed', () => {
    // Only the parsed shape is compared: numeric and boolean query values arrive as strings and are
    // converted before validation, so their input type is `unknown`. A defaulted query parameter (`QueryDefaults`) is always present once parsed.
    expectTypeOf<Each<{ [K in OperationId]: Output<ParamSchema<K, 'query'>> }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: WithRequired<DocParamObject<K, 'query'>, DefaultedKeys<K, QueryDefaults>> }>
    >();
  });

  test('header parameters', () => {
    expectTypeOf<Each<{ [K in OperationId]: Output<ParamSchema<K, 'headers'>> }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: DocParamObject<K, 'header'> }>
    >();
    expectTypeOf<Each<{ [K in OperationId]: Input<ParamSchema<K, 'headers'>> }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: DocParamObject<K, 'header'> }>
    >();
  });

  test('the defaults the normalizations assume are exactly the ones the zod schemas apply', () => {
    expectTypeOf<Each<{ [K in OperationId]: Defaulted<BodySchema<K>> }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: DefaultedKeys<K, BodyDefaults> }>
    >();
    expectTypeOf<Each<{ [K in OperationId]: Defaulted<ParamSchema<K, 'query'>> }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: DefaultedKeys<K, QueryDefaults> }>
    >();
    expectTypeOf<
      Each<{ [K in OperationId]: Defaulted<ParamSchema<K, 'params'>> | Defaulted<ParamSchema<K, 'headers'>> }>
    >().toEqualTypeOf<Each<{ [K in OperationId]: never }>>();
  });

  test('2xx bodies (z.infer), by status, every media type', () => {
    expectTypeOf<Each<{ [K in OperationId]: RouteSuccessBodies<K> }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: DocSuccessBodies<K> }>
    >();
  });
});
