import type { ColumnType } from 'kysely';
/**
 * Table shapes as stored. Both engines use portable column types: text for IDs, timestamps (ISO 8601 UTC,
 * which sort correctly as text) and JSON; integer 0/1 for booleans; double precision for fractional numbers.
 */
export interface AccountsTable {
  id: string;
  name: string;
  monthly_quota: number | null;
  trial_ends_at: string | null;
  signing_secret: string;
  is_operator: number;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  key_hash: string;
  prefix: string;
  last4: string;
  scopes: string;
  expires_at: string | null;
  revoked_at: string | null;
  rate_limit: string | null;
  created_at: string;
  /** migration 0010-console-sessions */
  last_used_at?: string | null;
}

export interface PoliciesTable {
  policy_id: string;
  account_id: string;
  name: string;
  yaml: string;
  categories: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface PolicyVersionsTable {
  policy_id: string;
  version: number;
  account_id: string;
  name: string;
  yaml: string;
  categories: string;
  created_at: string;
}

export interface DecisionsTable {
  id: string;
  account_id: string;
  content: string;
  content_type: string;
  safe: number;
  flagged: number;
  action: string;
  categories: string;
  raw_scores: string;
  evaluated: string;
  policy_id: string;
  policy_version: number;
  provider: string;
  model_version: string | null;
  latency: number;
  cost: number;
  language: string | null;
  metadata: string | null;
  request_id: string | null;
  replay_of: string | null;
  request: string;
  results: string | null;
  created_at: string;
  /** JSON array of MediaRef (migration 0002-media). */
  media: string | null;
  /** JSON ReplayData: what a replay under another policy needs (migration 0006-replay-data). */
  replay_data: string | null;
  /** JSON BankMatch: the bank item that decided this decision (migration 0008-banks). */
  bank_match: string | null;
  /** JSON OcrResult: text read in the image (migration 0009-ocr). */
  ocr: string | null;
  /** The API key that made the decision (migration 0014-decision-search); null for decisions made before it. */
  key_id?: string | null;
}

export interface BanksTable {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  version: number;
  item_count: number;
  created_at: string;
  updated_at: string;
}

export interface BankItemsTable {
  id: string;
  bank_id: string;
  account_id: string;
  fingerprint: string;
  pdq: string | null;
  pdq_quality: number | null;
  sha256: string | null;
  md5: string | null;
  label: string | null;
  source: string;
  media_ref: string | null;
  created_at: string;
}

/** Match lists (migration 0013-lists): terms, phrases and regexes per account, referenced by policies by name. */
export interface ListsTable {
  id: string;
  account_id: string;
  name: string;
  kind: string;
  action: string | null;
  /** JSON ListCaps of an allow list */
  caps: string | null;
  description: string | null;
  version: number;
  entry_count: number;
  regex_count: number;
  created_at: string;
  updated_at: string;
}

export interface ListEntriesTable {
  id: string;
  list_id: string;
  account_id: string;
  type: string;
  value: string;
  normalised: string;
  created_at: string;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  request_hash: string;
  state: string;
  status_code: number | null;
  response: string | null;
  locked_until: string;
  created_at: string;
}

export interface JobsTable {
  id: string;
  name: string;
  data: string;
  state: string;
  attempts: number;
  max_attempts: number;
  run_at: string;
  locked_until: string | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface EventsTable {
  id: string;
  account_id: string;
  type: string;
  payload: string;
  target_url: string | null;
  created_at: string;
  dispatched_at: string | null;
}

export interface WebhooksTable {
  id: string;
  account_id: string;
  url: string;
  events: string;
  description: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  enabled: number;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  webhook_id: string | null;
  event_id: string;
  event_type: string;
  url: string;
  attempt: number;
  status: string;
  response_code: number | null;
  duration_ms: number;
  error: string | null;
  created_at: string;
}

export interface BatchesTable {
  id: string;
  account_id: string;
  key_id: string;
  status: string;
  policy_id: string;
  total_items: number;
  items: string;
  webhook_url: string;
  request_id: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface BatchItemsTable {
  batch_id: string;
  idx: number;
  item_id: string;
  decision_id: string;
  safe: number;
  flagged: number;
  action: string;
}

export interface UsageTable {
  account_id: string;
  month: string;
  evaluations: number;
  text_items: number;
  image_items: number;
  video_frames: number;
  /** USD spent on external providers (migration 0007-usage-cost). */
  cost_usd: ColumnType<number, number | undefined, number>;
}

/** Spend on each external provider per month (migration 0007-usage-cost). */
export interface ProviderSpendTable {
  provider: string;
  month: string;
  calls: ColumnType<number, number | undefined, number>;
  cost_usd: ColumnType<number, number | undefined, number>;
}

/** Asynchronous video checks (migration 0005-videos); the final result is a decision with the same id. */
export interface VideosTable {
  id: string;
  account_id: string;
  key_id: string;
  status: string;
  policy_id: string;
  content: string;
  file: string;
  webhook_url: string | null;
  frame_interval: number;
  max_frames: number;
  max_duration: number;
  duration: number;
  frames_total: number;
  frames_processed: number;
  reserved_frames: number;
  reserved_month: string;
  estimated_seconds: number;
  request: string;
  request_id: string | null;
  error: string | null;
  started_at: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

/** Server-wide secrets generated once (e.g. the evidence URL signing key); never logged or returned. */
export interface ServerSecretsTable {
  name: string;
  value: string;
  created_at: string;
}

/** Web console sessions (migration 0010-console-sessions); the cookie token is stored only as its SHA-256. */
export interface ConsoleSessionsTable {
  token_hash: string;
  key_id: string;
  account_id: string;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

/** migration 0015-audit: append-only (the database refuses UPDATE and DELETE). */
export interface AuditLogTable {
  id: string;
  /** The account whose resource the action concerned (the operator's own for operator-wide actions). */
  account_id: string;
  /** `key` (an API key or a console session of one) or `operator` (the `verdict` CLI on the database). */
  actor_kind: string;
  actor_key_id: string | null;
  actor_name: string | null;
  actor_account_id: string | null;
  action: string;
  target_type: string;
  target_id: string;
  before: string | null;
  after: string | null;
  created_at: string;
}

/** A shadow policy beside a live one (migration 0012-policy-lifecycle); `candidate` is the frozen policy JSON. */
export interface PolicyShadowsTable {
  id: string;
  account_id: string;
  policy_id: string;
  candidate: string;
  source_policy_id: string | null;
  until: string | null;
  active: number;
  created_at: string;
  stopped_at: string | null;
}

/** What a shadow policy would have decided for one live decision (migration 0012-policy-lifecycle). */
export interface ShadowDecisionsTable {
  decision_id: string;
  shadow_id: string;
  account_id: string;
  old_action: string;
  new_action: string | null;
  /** JSON arrays of category names */
  old_triggered: string;
  new_triggered: string | null;
  not_replayable: string | null;
  created_at: string;
}

/** A backtest of a candidate policy over stored decisions (migration 0012-policy-lifecycle). */
export interface BacktestsTable {
  id: string;
  account_id: string;
  policy_id: string;
  candidate: string;
  window: string;
  status: string;
  processed: number;
  total: number;
  cursor: string | null;
  report: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

/** A chunk (at most 1 MB) of a blob kept in the database (PostgreSQL deployments without an object store). */
export interface BlobsTable {
  key: string;
  chunk: number;
  data: Uint8Array;
  created_at: string;
}

/** Human review queue entries (issue 18): at most one `pending` per decision. */
export interface ReviewItemsTable {
  id: string;
  account_id: string;
  decision_id: string;
  reason: string;
  priority: number;
  status: string;
  policy_id: string;
  action: string;
  content_type: string;
  appeal_id: string | null;
  lease_key_id: string | null;
  lease_expires_at: string | null;
  created_at: string;
  completed_at: string | null;
}

/** Human reviews of decisions; the latest one per decision gives its effective action. */
export interface ReviewsTable {
  id: string;
  account_id: string;
  decision_id: string;
  item_id: string | null;
  outcome: string;
  action: string;
  previous_action: string;
  categories: string;
  note: string | null;
  reviewer_key_id: string;
  reviewer_name: string | null;
  appeal_id: string | null;
  created_at: string;
}

/** Appeals of decisions, filed by the platform for its user; at most one `open` per decision. */
export interface AppealsTable {
  id: string;
  account_id: string;
  decision_id: string;
  statement: string;
  user_id: string | null;
  status: string;
  filed_by_key_id: string;
  review_id: string | null;
  created_at: string;
  resolved_at: string | null;
}

export interface Database {
  blobs: BlobsTable;
  audit_log: AuditLogTable;
  policy_shadows: PolicyShadowsTable;
  shadow_decisions: ShadowDecisionsTable;
  backtests: BacktestsTable;
  console_sessions: ConsoleSessionsTable;
  usage: UsageTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  policies: PoliciesTable;
  policy_versions: PolicyVersionsTable;
  decisions: DecisionsTable;
  provider_spend: ProviderSpendTable;
  idempotency_keys: IdempotencyKeysTable;
  jobs: JobsTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  batches: BatchesTable;
  batch_items: BatchItemsTable;
  videos: VideosTable;
  server_secrets: ServerSecretsTable;
  banks: BanksTable;
  bank_items: BankItemsTable;
  lists: ListsTable;
  list_entries: ListEntriesTable;
  review_items: ReviewItemsTable;
  reviews: ReviewsTable;
  appeals: AppealsTable;
}
