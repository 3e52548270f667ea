/**
 * The SDK's types (hey-api) against openapi-typescript's independent reading of the same contract:
 * for every operation its request body, path/query/header parameters, success bodies and problem
 * bodies, plus the debate events its streaming functions yield.
 */
import { describe, expectTypeOf, test } from 'vitest';
import type * as sdk from '../../sdk/src/generated/sdk.gen.js';
import type {
  AskFollowUpData,
  AskFollowUpErrors,
  AskFollowUpResponses,
  AskProviderData,
  AskProviderErrors,
  AskProviderResponses,
  CancelSessionData,
  CancelSessionErrors,
  CancelSessionResponses,
  ChangePasswordData,
  ChangePasswordErrors,
  ChangePasswordResponses,
  ContinueSessionData,
  ContinueSessionErrors,
  ContinueSessionResponses,
  CreateApiTokenData,
  CreateApiTokenErrors,
  CreateApiTokenResponses,
  CreateChatCompletionData,
  CreateChatCompletionErrors,
  CreateChatCompletionResponses,
  CreateUserData,
  CreateUserErrors,
  CreateUserResponses,
  DebateEvent,
  DeleteSessionData,
  DeleteSessionErrors,
  DeleteSessionResponses,
  DeleteUserData,
  DeleteUserErrors,
  DeleteUserResponses,
  EstimateRunData,
  EstimateRunErrors,
  EstimateRunResponses,
  ExportSessionJsonData,
  ExportSessionJsonErrors,
  ExportSessionJsonResponses,
  ExportSessionMarkdownData,
  ExportSessionMarkdownErrors,
  ExportSessionMarkdownResponses,
  GetCurrentUserData,
  GetCurrentUserErrors,
  GetCurrentUserResponses,
  GetHealthData,
  GetHealthErrors,
  GetHealthResponses,
  GetReadyData,
  GetReadyErrors,
  GetReadyResponses,
  GetSessionData,
  GetSessionErrors,
  GetSessionResponses,
  GetSessionThreadData,
  GetSessionThreadErrors,
  GetSessionThreadResponses,
  GetTrackRecordData,
  GetTrackRecordErrors,
  GetTrackRecordResponses,
  ListApiTokensData,
  ListApiTokensErrors,
  ListApiTokensResponses,
  ListOpenAiModelsData,
  ListOpenAiModelsErrors,
  ListOpenAiModelsResponses,
  ListProvidersData,
  ListProvidersErrors,
  ListProvidersResponses,
  ListSessionSharesData,
  ListSessionSharesErrors,
  ListSessionSharesResponses,
  ListSessionsData,
  ListSessionsErrors,
  ListSessionsResponses,
  ListUsersData,
  ListUsersErrors,
  ListUsersResponses,
  LoginData,
  LoginErrors,
  LoginResponses,
  LogoutData,
  LogoutErrors,
  LogoutResponses,
  Problem,
  ResetUserPasswordData,
  ResetUserPasswordErrors,
  ResetUserPasswordResponses,
  RevokeApiTokenData,
  RevokeApiTokenErrors,
  RevokeApiTokenResponses,
  RunDeepDebateData,
  RunDeepDebateErrors,
  RunDeepDebateResponses,
  RunParallelData,
  RunParallelErrors,
  RunParallelResponses,
  ShareSessionData,
  ShareSessionErrors,
  ShareSessionResponses,
  StreamDeepDebateData,
  StreamDeepDebateErrors,
  StreamDeepDebateResponses,
  StreamSessionEventsData,
  StreamSessionEventsErrors,
  StreamSessionEventsResponses,
  SynthesizeVerdictData,
  SynthesizeVerdictErrors,
  SynthesizeVerdictResponses,
  UnshareSessionData,
  UnshareSessionErrors,
  UnshareSessionResponses,
  UpdateSessionData,
  UpdateSessionErrors,
  UpdateSessionResponses,
  UpdateUserData,
  UpdateUserErrors,
  UpdateUserResponses,
} from '../../sdk/src/generated/types.gen.js';
import type { components, paths } from '../generated/openapi-paths.js';
import type {
  DeclaredAt,
  DocErrorBodies,
  DocMedia,
  DocParams,
  DocRequestBodyInput,
  DocSuccessBodies,
  OperationId,
  ResponseBody,
  WithOptional,
} from './openapi-types.js';

/** hey-api's three types per operation. TypeScript cannot look a type up by name, so they are listed once here. */
type Sdk = {
  getHealth: { data: GetHealthData; responses: GetHealthResponses; errors: GetHealthErrors };
  getReady: { data: GetReadyData; responses: GetReadyResponses; errors: GetReadyErrors };
  listProviders: { data: ListProvidersData; responses: ListProvidersResponses; errors: ListProvidersErrors };
  getTrackRecord: { data: GetTrackRecordData; responses: GetTrackRecordResponses; errors: GetTrackRecordErrors };
  askProvider: { data: AskProviderData; responses: AskProviderResponses; errors: AskProviderErrors };
  runParallel: { data: RunParallelData; responses: RunParallelResponses; errors: RunParallelErrors };
  runDeepDebate: { data: RunDeepDebateData; responses: RunDeepDebateResponses; errors: RunDeepDebateErrors };
  streamDeepDebate: { data: StreamDeepDebateData; responses: StreamDeepDebateResponses; errors: StreamDeepDebateErrors };
  estimateRun: { data: EstimateRunData; responses: EstimateRunResponses; errors: EstimateRunErrors };
  synthesizeVerdict: { data: SynthesizeVerdictData; responses: SynthesizeVerdictResponses; errors: SynthesizeVerdictErrors };
  listSessions: { data: ListSessionsData; responses: ListSessionsResponses; errors: ListSessionsErrors };
  getSession: { data: GetSessionData; responses: GetSessionResponses; errors: GetSessionErrors };
  cancelSession: { data: CancelSessionData; responses: CancelSessionResponses; errors: CancelSessionErrors };
  continueSession: { data: ContinueSessionData; responses: ContinueSessionResponses; errors: ContinueSessionErrors };
  deleteSession: { data: DeleteSessionData; responses: DeleteSessionResponses; errors: DeleteSessionErrors };
  streamSessionEvents: {
    data: StreamSessionEventsData;
    responses: StreamSessionEventsResponses;
    errors: StreamSessionEventsErrors;
  };
  exportSessionMarkdown: {
    data: ExportSessionMarkdownData;
    responses: ExportSessionMarkdownResponses;
    errors: ExportSessionMarkdownErrors;
  };
  exportSessionJson: { data: ExportSessionJsonData; responses: ExportSessionJsonResponses; errors: ExportSessionJsonErrors };
  askFollowUp: { data: AskFollowUpData; responses: AskFollowUpResponses; errors: AskFollowUpErrors };
  getSessionThread: { data: GetSessionThreadData; responses: GetSessionThreadResponses; errors: GetSessionThreadErrors };
  updateSession: { data: UpdateSessionData; responses: UpdateSessionResponses; errors: UpdateSessionErrors };
  listSessionShares: { data: ListSessionSharesData; responses: ListSessionSharesResponses; errors: ListSessionSharesErrors };
  shareSession: { data: ShareSessionData; responses: ShareSessionResponses; errors: ShareSessionErrors };
  unshareSession: { data: UnshareSessionData; responses: UnshareSessionResponses; errors: UnshareSessionErrors };
  login: { data: LoginData; responses: LoginResponses; errors: LoginErrors };
  logout: { data: LogoutData; responses: LogoutResponses; errors: LogoutErrors };
  getCurrentUser: { data: GetCurrentUserData; responses: GetCurrentUserResponses; errors: GetCurrentUserErrors };
  listApiTokens: { data: ListApiTokensData; responses: ListApiTokensResponses; errors: ListApiTokensErrors };
  createApiToken: { data: CreateApiTokenData; responses: CreateApiTokenResponses; errors: CreateApiTokenErrors };
  revokeApiToken: { data: RevokeApiTokenData; responses: RevokeApiTokenResponses; errors: RevokeApiTokenErrors };
  changePassword: { data: ChangePasswordData; responses: ChangePasswordResponses; errors: ChangePasswordErrors };
  listUsers: { data: ListUsersData; responses: ListUsersResponses; errors: ListUsersErrors };
  createUser: { data: CreateUserData; responses: CreateUserResponses; errors: CreateUserErrors };
  updateUser: { data: UpdateUserData; responses: UpdateUserResponses; errors: UpdateUserErrors };
  deleteUser: { data: DeleteUserData; responses: DeleteUserResponses; errors: DeleteUserErrors };
  resetUserPassword: { data: ResetUserPasswordData; responses: ResetUserPasswordResponses; errors: ResetUserPasswordErrors };
  listOpenAiModels: { data: ListOpenAiModelsData; responses: ListOpenAiModelsResponses; errors: ListOpenAiModelsErrors };
  createChatCompletion: {
    data: CreateChatCompletionData;
    responses: CreateChatCompletionResponses;
    errors: CreateChatCompletionErrors;
  };
};

type Data<K extends OperationId> = Sdk[K]['data'];
/** A field of the request data; `undefined` when hey-api declares none (its `path?: never`, or no `headers` at all). */
type DataField<K extends OperationId, F extends string> = F extends keyof Data<K> ? Data<K>[F] : undefined;
/** The options object the SDK function for `K` takes (`getHealth`'s is optional). */
type FunctionOptions<K extends OperationId> = NonNullable<Parameters<(typeof sdk)[K]>[0]>;

/** A table with an entry for every operation: one assertion covers them all, and a mismatch is reported under the operation's name. */
type Each<F extends { [K in OperationId]: unknown }> = { [K in OperationId]: F[K] };

describe('every operation', () => {
  test('the SDK has one function per operation, and the type list above covers them all', () => {
    expectTypeOf<keyof typeof sdk>().toEqualTypeOf<OperationId>();
    expectTypeOf<keyof Sdk>().toEqualTypeOf<OperationId>();
  });

  test("each SDK function takes its operation's data, at the path where the document declares it", () => {
    expectTypeOf<Each<{ [K in OperationId]: FunctionOptions<K>['body'] }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: Data<K>['body'] }>
    >();
    expectTypeOf<Each<{ [K in OperationId]: FunctionOptions<K>['path'] }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: Data<K>['path'] }>
    >();
    expectTypeOf<Each<{ [K in OperationId]: FunctionOptions<K>['query'] }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: Data<K>['query'] }>
    >();
    expectTypeOf<Each<{ [K in OperationId]: DeclaredAt<K, Data<K>['url']> }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: true }>
    >();
  });

  test('request bodies', () => {
    // `DocRequestBodyInput`: defaulted body fields made optional, see `BodyDefaults`.
    expectTypeOf<Each<{ [K in OperationId]: Data<K>['body'] }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: DocRequestBodyInput<K> }>
    >();
  });

  test('path, query and header parameters', () => {
    expectTypeOf<Each<{ [K in OperationId]: DataField<K, 'path'> }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: DocParams<K, 'path'> }>
    >();
    expectTypeOf<Each<{ [K in OperationId]: DataField<K, 'query'> }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: DocParams<K, 'query'> }>
    >();
    expectTypeOf<Each<{ [K in OperationId]: DataField<K, 'headers'> }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: DocParams<K, 'header'> }>
    >();
  });

  test('success bodies, by status', () => {
    // hey-api keeps one media type per response, so the contract gives each response exactly one; except
    // createChatCompletion, whose 200 is OpenAI's (JSON, or an event stream with `stream: true`): hey-api types its JSON.
    type OneMedia = Exclude<OperationId, 'createChatCompletion'>;
    expectTypeOf<Omit<Each<{ [K in OperationId]: Sdk[K]['responses'] }>, 'createChatCompletion'>>().toEqualTypeOf<{
      [K in OneMedia]: DocSuccessBodies<K>;
    }>();
    expectTypeOf<Sdk['createChatCompletion']['responses']>().toEqualTypeOf<{
      200: DocMedia<'createChatCompletion', 200, 'application/json'>;
    }>();
  });

  test('error bodies, by status: problems, and OpenAI errors on the /v1 operations', () => {
    expectTypeOf<Each<{ [K in OperationId]: Sdk[K]['errors'] }>>().toEqualTypeOf<
      Each<{ [K in OperationId]: DocErrorBodies<K> }>
    >();
    expectTypeOf<Problem>().toEqualTypeOf<components['schemas']['Problem']>();
    type OpenAiOperation = 'listOpenAiModels' | 'createChatCompletion';
    type OpenAiError = components['schemas']['OpenAiError'];
    type Headers = components['schemas']['Problem']; // 431 comes from the HTTP server before any route
    expectTypeOf<Sdk[OpenAiOperation]['errors'][keyof Sdk[OpenAiOperation]['errors']]>().toEqualTypeOf<OpenAiError | Headers>();
  });
});

/** What iterating a streaming SDK function's `stream` yields. */
type Streamed<F extends (...args: never) => unknown> =
  Awaited<ReturnType<F>> extends { stream: AsyncGenerator<infer Event, unknown, unknown> } ? Event : never;

describe('debate events', () => {
  test("the SDK's DebateEvent is the document's", () => {
    expectTypeOf<DebateEvent>().toEqualTypeOf<components['schemas']['DebateEvent']>();
  });

  test('streamDeepDebate and streamSessionEvents yield DebateEvent, the event-stream schema', () => {
    type Stream = paths['/consilium/deep/stream']['post']['responses'][200]['content']['text/event-stream'];
    type Replay = paths['/sessions/{sessionId}/events']['get']['responses'][200]['content']['text/event-stream'];
    expectTypeOf<Streamed<typeof sdk.streamDeepDebate>>().toEqualTypeOf<DebateEvent>();
    expectTypeOf<Streamed<typeof sdk.streamDeepDebate>>().toEqualTypeOf<Stream>();
    expectTypeOf<Streamed<typeof sdk.streamSessionEvents>>().toEqualTypeOf<Replay>();
  });

  test('spot checks, straight through `paths`', () => {
    // `detach` has a default, so openapi-typescript makes it required; a client may leave it out.
    expectTypeOf<AskProviderData['body']>().toEqualTypeOf<
      WithOptional<paths['/ask/{provider}']['post']['requestBody']['content']['application/json'], 'detach'>
    >();
    expectTypeOf<GetHealthResponses[200]>().toEqualTypeOf<ResponseBody<paths['/health']['get']['responses'][200]>>();
  });
});
