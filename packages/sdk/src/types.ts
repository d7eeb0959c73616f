/**
 * Request and response types of every endpoint, derived from the generated OpenAPI types (`generated/openapi.ts`)
 * so that a change of a server schema changes them too; `tsc` then reports every use that no longer fits.
 */
import type { components, paths } from './generated/openapi.ts';
import type { PendingPaths } from './pending-types.ts';

/** Every documented path; a generated path replaces a pending (hand-typed) one of the same name. */
export type Paths = paths & Omit<PendingPaths, keyof paths>;
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The operation of a path and method. */
export type Operation<P extends keyof Paths, M extends HttpMethod> = Paths[P] extends { [K in M]: infer O }
  ? NonNullable<O>
  : never;

type JsonContent<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Responses<O> = O extends { responses: infer R } ? R : never;
type SuccessStatus = 200 | 201 | 202 | 204;

/** The JSON request body of an operation. */
export type RequestBody<P extends keyof Paths, M extends HttpMethod> =
  Operation<P, M> extends {
    requestBody?: infer B;
  }
    ? JsonContent<NonNullable<B>>
    : never;

/** The JSON body of any success response (2xx) of an operation. */
export type ResponseBody<P extends keyof Paths, M extends HttpMethod> = JsonContent<
  Responses<Operation<P, M>>[Extract<keyof Responses<Operation<P, M>>, SuccessStatus>]
>;

/** The JSON body of one response status of an operation. */
export type ResponseBodyAt<P extends keyof Paths, M extends HttpMethod, S extends number> = JsonContent<
  Responses<Operation<P, M>>[Extract<keyof Responses<Operation<P, M>>, S>]
>;

/** Path parameters of an operation. */
export type PathParams<P extends keyof Paths, M extends HttpMethod> =
  Operation<P, M> extends {
    parameters: { path?: infer Q };
  }
    ? NonNullable<Q>
    : never;

/** Decimal-string query parameters also take numbers. */
type Widen<T> = Exclude<T, undefined> extends string ? Exclude<T, undefined> | number : Exclude<T, undefined>;

/** Query parameters of an operation; numbers are accepted where the server reads decimal strings. */
export type QueryParams<P extends keyof Paths, M extends HttpMethod> =
  Operation<P, M> extends {
    parameters: { query?: infer Q };
  }
    ? { [K in keyof NonNullable<Q>]?: Widen<NonNullable<Q>[K]> }
    : never;

export type Schemas = components['schemas'];

// Checks
export type CheckParams = RequestBody<'/v1/check', 'post'>;
export type CheckResult = ResponseBody<'/v1/check', 'post'>;
export type CategoryResult = CheckResult['categories'][number];
export type Action = CheckResult['action'];
export type DryRunParams = RequestBody<'/v1/check/dry-run', 'post'>;
export type DryRunResult = ResponseBody<'/v1/check/dry-run', 'post'>;
export type MultimodalParams = RequestBody<'/v1/check/multimodal', 'post'>;
export type MultimodalResult = ResponseBody<'/v1/check/multimodal', 'post'>;

// Batches
export type BatchParams = RequestBody<'/v1/batch/check', 'post'>;
export type BatchItem = BatchParams['items'][number];
export type BatchResult = ResponseBody<'/v1/batch/check', 'post'>;
export type BatchItemResult = BatchResult['items'][number];
export type AsyncBatchParams = RequestBody<'/v1/batch/check/async', 'post'>;
export type BatchAccepted = ResponseBody<'/v1/batch/check/async', 'post'>;
export type BatchStatus = ResponseBody<'/v1/batch/{batchId}', 'get'>;

// Policies
export type PolicyParams = RequestBody<'/v1/policies', 'post'>;
export type PolicyValidateParams = RequestBody<'/v1/policies/validate', 'post'>;
export type PolicyValidation = ResponseBody<'/v1/policies/validate', 'post'>;
export type Policy = ResponseBody<'/v1/policies/{policyId}', 'get'>;
export type PolicyList = ResponseBody<'/v1/policies', 'get'>;
export type PolicyVersionList = ResponseBody<'/v1/policies/{policyId}/versions', 'get'>;
export type PolicyDiff = ResponseBody<'/v1/policies/{policyId}/diff', 'get'>;
export type PolicyDiffParams = QueryParams<'/v1/policies/{policyId}/diff', 'get'>;
export type PolicyDeleted = ResponseBody<'/v1/policies/{policyId}', 'delete'>;
export type BacktestParams = RequestBody<'/v1/policies/{policyId}/backtest', 'post'>;
export type Backtest = ResponseBody<'/v1/backtests/{backtestId}', 'get'>;
export type ChangeReport = components['schemas']['ChangeReport'];
export type ShadowParams = RequestBody<'/v1/policies/{policyId}/shadow', 'put'>;
export type Shadow = ResponseBody<'/v1/policies/{policyId}/shadow', 'get'>;
export type ShadowReport = ResponseBody<'/v1/policies/{policyId}/shadow/report', 'get'>;

// Decisions
export type Decision = ResponseBody<'/v1/decisions/{decisionId}', 'get'>;
export type DecisionListParams = QueryParams<'/v1/decisions', 'get'>;
export type StatsParams = QueryParams<'/v1/stats', 'get'>;
export type Stats = ResponseBody<'/v1/stats', 'get'>;
export type DecisionList = ResponseBody<'/v1/decisions', 'get'>;
export type DecisionExportParams = QueryParams<'/v1/decisions/export', 'get'>;
export type ReplayParams = RequestBody<'/v1/decisions/{decisionId}/replay', 'post'>;
export type ReplayResult = ResponseBody<'/v1/decisions/{decisionId}/replay', 'post'>;
export type CurlResult = ResponseBody<'/v1/decisions/{decisionId}/curl', 'get'>;

// Video
export type VideoCheckParams = RequestBody<'/v1/video/check', 'post'>;
export type VideoAccepted = ResponseBody<'/v1/video/check', 'post'>;
export type VideoStatus = ResponseBody<'/v1/video/status/{decisionId}', 'get'>;
/** The final result (200: `status` completed or failed) or, while processing, the status (202). */
export type VideoResultResponse = ResponseBody<'/v1/video/result/{decisionId}', 'get'>;
/** The final result of a video check (the 200 body): `status` is `completed`, or `failed` with `error`. */
export type VideoResult = ResponseBodyAt<'/v1/video/result/{decisionId}', 'get', 200>;
export type VideoFrameResult = NonNullable<VideoResult['results']>[number];
export type VideoUploadFields =
  Operation<'/v1/video/upload', 'post'> extends {
    requestBody: { content: { 'multipart/form-data': infer F } };
  }
    ? F
    : never;

// Webhooks
export type WebhookCreateParams = RequestBody<'/v1/webhooks', 'post'>;
export type Webhook = ResponseBody<'/v1/webhooks/{webhookId}', 'get'>;
export type WebhookList = ResponseBody<'/v1/webhooks', 'get'>;
export type WebhookUpdateParams = RequestBody<'/v1/webhooks/{webhookId}', 'patch'>;
export type WebhookDeleted = ResponseBody<'/v1/webhooks/{webhookId}', 'delete'>;
export type WebhookTestParams = RequestBody<'/v1/webhooks/{webhookId}/test', 'post'>;
export type WebhookTestResult = ResponseBody<'/v1/webhooks/{webhookId}/test', 'post'>;
export type DeliveryListParams = QueryParams<'/v1/webhooks/{webhookId}/deliveries', 'get'>;
export type DeliveryList = ResponseBody<'/v1/webhooks/{webhookId}/deliveries', 'get'>;
export type Delivery = DeliveryList['deliveries'][number];

// Hash banks
export type BankCreateParams = RequestBody<'/v1/banks', 'post'>;
export type Bank = ResponseBody<'/v1/banks/{bankId}', 'get'>;
export type BankList = ResponseBody<'/v1/banks', 'get'>;
export type BankDeleted = ResponseBody<'/v1/banks/{bankId}', 'delete'>;
export type BankItemCreateParams = RequestBody<'/v1/banks/{bankId}/items', 'post'>;
export type BankItem = ResponseBody<'/v1/banks/{bankId}/items', 'post'>;
export type BankItemListParams = QueryParams<'/v1/banks/{bankId}/items', 'get'>;
export type BankItemList = ResponseBody<'/v1/banks/{bankId}/items', 'get'>;
export type BankItemDeleted = ResponseBody<'/v1/banks/{bankId}/items/{itemId}', 'delete'>;
export type BankImportResult = ResponseBody<'/v1/banks/{bankId}/import', 'post'>;

// Match lists
export type ListCreateParams = RequestBody<'/v1/lists', 'post'>;
export type ListCreated = ResponseBody<'/v1/lists', 'post'>;
export type List = ListCreated['list'];
export type ListList = ResponseBody<'/v1/lists', 'get'>;
export type ListGetParams = QueryParams<'/v1/lists/{listId}', 'get'>;
export type ListWithEntries = ResponseBody<'/v1/lists/{listId}', 'get'>;
export type ListEntry = ListWithEntries['entries'][number];
export type ListEntryInput = RequestBody<'/v1/lists/{listId}/entries', 'post'>['entries'][number];
export type ListChanges = ResponseBody<'/v1/lists/{listId}/entries', 'post'>;
export type ListEntriesRemoveParams = RequestBody<'/v1/lists/{listId}/entries', 'delete'>;
export type ListEntriesRemoved = ResponseBody<'/v1/lists/{listId}/entries', 'delete'>;
export type ListDeleted = ResponseBody<'/v1/lists/{listId}', 'delete'>;

// Keys, accounts, usage
export type KeyCreateParams = RequestBody<'/v1/keys', 'post'>;
export type ApiKey = ResponseBody<'/v1/keys', 'post'>;
export type KeyListParams = QueryParams<'/v1/keys', 'get'>;
export type KeyList = ResponseBody<'/v1/keys', 'get'>;
export type KeyUpdateParams = RequestBody<'/v1/keys/{id}', 'patch'>;
export type KeyRevoked = ResponseBody<'/v1/keys/{id}', 'delete'>;
export type AccountCreateParams = RequestBody<'/v1/accounts', 'post'>;
export type Account = ResponseBody<'/v1/accounts', 'post'>;
export type AccountListParams = QueryParams<'/v1/accounts', 'get'>;
export type AccountList = ResponseBody<'/v1/accounts', 'get'>;
export type AccountUpdateParams = RequestBody<'/v1/accounts/{accountId}', 'patch'>;
export type UsageParams = QueryParams<'/v1/usage', 'get'>;
export type AuditListParams = QueryParams<'/v1/audit', 'get'>;
export type AuditList = ResponseBody<'/v1/audit', 'get'>;
export type AuditEntry = AuditList['entries'][number];
export type Usage = ResponseBody<'/v1/usage', 'get'>;
export type KeyUsageParams = QueryParams<'/v1/usage/keys', 'get'>;
export type KeyUsage = ResponseBody<'/v1/usage/keys', 'get'>;
export type ProviderList = ResponseBody<'/v1/providers', 'get'>;

// Human review, appeals, statements of reasons (issue 18)
export type ReviewQueueParams = QueryParams<'/v1/review/queue', 'get'>;
export type ReviewQueue = ResponseBody<'/v1/review/queue', 'get'>;
export type ReviewQueueItem = Schemas['ReviewQueueItem'];
export type ReviewClaimParams = RequestBody<'/v1/review/queue/claim', 'post'>;
export type ReviewClaim = ResponseBody<'/v1/review/queue/claim', 'post'>;
export type ReviewParams = RequestBody<'/v1/decisions/{decisionId}/review', 'post'>;
export type HumanReview = Schemas['HumanReview'];
export type AppealParams = RequestBody<'/v1/decisions/{decisionId}/appeals', 'post'>;
export type Appeal = Schemas['Appeal'];
export type AppealList = ResponseBody<'/v1/decisions/{decisionId}/appeals', 'get'>;
export type Statement = Schemas['Statement'];
export type QualityParams = QueryParams<'/v1/quality', 'get'>;
export type QualityReport = ResponseBody<'/v1/quality', 'get'>;
export type StatementExportParams = QueryParams<'/v1/statements/export', 'get'>;
