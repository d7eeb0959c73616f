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

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  policies: PoliciesTable;
  policy_versions: PolicyVersionsTable;
  decisions: DecisionsTable;
  idempotency_keys: IdempotencyKeysTable;
}
