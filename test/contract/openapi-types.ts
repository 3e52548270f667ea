/**
 * openapi-typescript's reading of the contract (`test/generated/openapi-paths.ts`), reshaped per
 * operation so the type tests can compare it with what hey-api (the SDK) and the zod routes (the
 * server) generated from the same document. Types only.
 */
import type { operations, paths } from '../generated/openapi-paths.js';

export type OperationId = keyof operations;

export type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206;
type Responses<K extends OperationId> = operations[K]['responses'];

export type SuccessStatuses<K extends OperationId> = Extract<keyof Responses<K>, SuccessStatus>;
export type ErrorStatuses<K extends OperationId> = Exclude<keyof Responses<K>, SuccessStatus>;

/** The body of a response without content: hey-api's type for a 204 (`DeleteSessionResponses[204]`). */
// biome-ignore lint/suspicious/noConfusingVoidType: must be identical to hey-api's `void`, which `undefined` is not.
export type NoContent = void;

/**
 * A response's body: the union of its media types' schemas. A response without content is
 * `NoContent` for 204 and `unknown` otherwise, hey-api's rule (every such response here is a 204).
 */
export type ResponseBody<R, Status = never> = R extends { content: infer C }
  ? C[keyof C]
  : [Status] extends [204]
    ? NoContent
    : unknown;

/** The body of each 2xx response, by status. */
export type DocSuccessBodies<K extends OperationId> = {
  [S in SuccessStatuses<K>]: ResponseBody<Responses<K>[S], S>;
};

/** The body of each error response, by status. */
export type DocErrorBodies<K extends OperationId> = { [S in ErrorStatuses<K>]: ResponseBody<Responses<K>[S], S> };

/** One media type of one response, for operations whose response has several. */
export type DocMedia<K extends OperationId, S extends keyof Responses<K>, M extends string> = Responses<K>[S] extends {
  content: infer C;
}
  ? M extends keyof C
    ? C[M]
    : never
  : never;

/** The request body; `undefined` when the operation has none (openapi-typescript's `requestBody?: never`). */
export type DocRequestBody<K extends OperationId> = operations[K]['requestBody'] extends infer B
  ? B extends { content: infer C }
    ? C[keyof C]
    : B
  : never;

/** The `path`, `query` or `header` parameters; `undefined` when the operation declares none of that kind. */
export type DocParams<K extends OperationId, In extends 'path' | 'query' | 'header'> = operations[K]['parameters'][In];

/**
 * Defaulted request fields. openapi-typescript (its default `defaultNonNullable: true`) types a
 * body property that has a `default` as required, i.e. as the server sees it after parsing; a
 * client may omit it. Query parameters are the other way round: optional in the document (no
 * `required: true`), always present once the server has applied the default. The server test
 * checks these lists against the zod schemas' input/output, so they cannot go stale.
 */
export type BodyDefaults = {
  askProvider: 'detach';
  runParallel: 'detach';
  runDeepDebate: 'rounds' | 'detach' | 'anonymous' | 'ranking';
  streamDeepDebate: 'rounds' | 'detach' | 'anonymous' | 'ranking';
  askFollowUp: 'detach';
  changePassword: 'endOtherCredentials';
};
export type QueryDefaults = { listSessions: 'limit' | 'shared' | 'archived'; listProviders: 'check' };
export type DefaultedKeys<K, Table> = K extends keyof Table ? Table[K] : never;

type Simplify<T> = { [P in keyof T]: T[P] };
/** `T` with keys `D` optional (no-op when `D` is never, so other types stay identical). */
export type WithOptional<T, D extends PropertyKey> = [D] extends [never]
  ? T
  : T extends object
    ? Simplify<Omit<T, D> & Partial<Pick<T, D & keyof T>>>
    : T;
/** `T` with keys `D` required (no-op when `D` is never). */
export type WithRequired<T, D extends PropertyKey> = [D] extends [never]
  ? T
  : T extends object
    ? Simplify<Omit<T, D> & Required<Pick<T, D & keyof T>>>
    : T;

/** The request body as a client may send it: defaulted fields optional. */
export type DocRequestBodyInput<K extends OperationId> = WithOptional<DocRequestBody<K>, DefaultedKeys<K, BodyDefaults>>;

/** Whether `operations[K]` is one of the operations the document declares at `Url`. */
export type DeclaredAt<K extends OperationId, Url> = Url extends keyof paths
  ? operations[K] extends paths[Url][Exclude<keyof paths[Url], 'parameters'>]
    ? true
    : false
  : false;
