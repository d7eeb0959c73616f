/** Shapes of the public API's answers, as the console reads them (see /openapi.json). */

import type { components, paths } from '@verdict/sdk';

export type Action = 'allow' | 'warn' | 'flag' | 'block';
export const ACTIONS: Action[] = ['allow', 'warn', 'flag', 'block'];
export const CATEGORIES = [
  'toxicity',
  'harassment',
  'hate',
  'violence',
  'sexual',
  'self_harm',
  'profanity',
  'spam',
  'suggestive',
];
export const CONTENT_TYPES = ['text', 'image', 'video', 'multimodal'];
export const SCOPES = [
  'check',
  'policies:read',
  'policies:write',
  'decisions:read',
  'webhooks:read',
  'webhooks:write',
  'admin',
];
// the service's event types (packages/server/src/domain/event-types.ts): the review events were missing here, so a
// webhook could not be subscribed to them from the console
export const EVENT_TYPES = [
  'decision.created',
  'decision.flagged',
  'decision.blocked',
  'moderation.completed',
  'moderation.failed',
  'decision.reviewed',
  'decision.overturned',
  'appeal.resolved',
];

export interface Session {
  csrfToken: string;
  expiresAt: string;
  accountId: string;
  keyId: string;
  scopes: string[];
  operator: boolean;
}

export interface Highlight {
  start: number;
  end: number;
  text: string;
}

export interface CategoryResult {
  category: string;
  score: number;
  threshold?: number;
  triggered: boolean;
  evaluated?: boolean;
  highlights?: Highlight[];
}

export interface Decision {
  decisionId: string;
  content: string;
  contentType: string;
  safe: boolean;
  flagged: boolean;
  action: Action;
  categories: CategoryResult[];
  policyId: string;
  policyVersion: number;
  provider: string;
  latency: number;
  cost: number;
  language: string | null;
  metadata: Record<string, unknown> | null;
  timestamp: string;
  replayOf: string | null;
  /** The action that applies: the latest human review's, else `action` (the automated one). */
  effectiveAction?: Action;
  review?: HumanReview | null;
  results?: MultimodalResult[] | FrameResult[];
  /** Images only: what the service keeps of each image judged (never its bytes). */
  media?: MediaRef[];
  ocr?: OcrResult;
  bankMatch?: BankMatch;
}

/** What a decision keeps of an image: a reference (the URL, or `sha256:…` for inline bytes) and fingerprints. */
export interface MediaRef {
  ref: string;
  sha256: string;
  bytes: number;
  format: string;
  width: number;
  height: number;
  phash: string;
}

export interface OcrRegion {
  text: string;
  confidence: number;
  /** Pixels of the image as submitted. */
  box: { x: number; y: number; width: number; height: number };
}

/** The text read in an image; highlights of the image's categories point into `text`. */
export interface OcrResult {
  text: string;
  language: string;
  confidence: number;
  regions: OcrRegion[];
}

export interface BankMatch {
  bank: string;
  bankId: string;
  itemId: string;
  label: string | null;
  matchedOn: string;
  distance: number;
  maxDistance: number;
  action: Action;
  contentRef: string;
}

export interface HumanReview {
  reviewId: string;
  outcome: 'confirm' | 'overturn';
  action: Action;
  previousAction: Action;
  categories: string[];
  note: string | null;
  reviewer: { keyId: string; name: string | null };
  direct: boolean;
  appealId: string | null;
  reviewedAt: string;
}

export type QueueReason = 'category' | 'action' | 'sample' | 'appeal';

export interface QueueItem {
  itemId: string;
  decisionId: string;
  reason: QueueReason;
  priority: number;
  policyId: string;
  action: Action;
  contentType: string;
  appealId: string | null;
  lease: { keyId: string; expiresAt: string } | null;
  createdAt: string;
  decision?: Decision;
}

export interface QueuePage {
  items: QueueItem[];
  limit: number;
  offset: number;
  hasMore: boolean;
}

export interface Appeal {
  appealId: string;
  decisionId: string;
  status: 'open' | 'upheld' | 'overturned';
  statement: string;
  userId: string | null;
  reviewId: string | null;
  createdAt: string;
  resolvedAt: string | null;
}

export interface Evidence {
  url: string;
  expiresAt: string;
}

export interface FrameResult {
  frameNumber: number;
  timestamp: number;
  safe: boolean;
  flagged: boolean;
  categories: CategoryResult[];
  evidence?: Evidence;
  ocr?: OcrResult;
  bankMatch?: BankMatch;
}

export interface MultimodalResult {
  contentType: string;
  safe: boolean;
  flagged: boolean;
  action: Action;
  categories: CategoryResult[];
  contentRef?: string;
  ocr?: OcrResult;
  bankMatch?: BankMatch;
  frames?: FrameResult[];
  results?: FrameResult[];
}

export interface DecisionPage {
  decisions: Decision[];
  limit: number;
  offset: number;
  hasMore: boolean;
}

export interface PolicyCategory {
  threshold: number;
  action: Action;
}

export interface Policy {
  policyId: string;
  name: string;
  description: string | null;
  categories: Record<string, PolicyCategory>;
  version: number;
  builtin: boolean;
  yamlContent: string;
  createdAt: string;
  updatedAt: string;
}

/** As the SDK's generated OpenAPI types have it (a type-only import: nothing is bundled). */
export type ApiKey = components['schemas']['ApiKey'];

/** As the SDK's generated OpenAPI types have it (a type-only import: nothing is bundled). */
export type Webhook = components['schemas']['Webhook'];

export interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  attempt: number;
  timestamp: string;
  status: 'succeeded' | 'failed';
  responseCode: number | null;
  durationMs: number;
  error: string | null;
}

export interface Counts {
  count: number;
  actions: Record<Action, number>;
  flagged: number;
  flagRate: number;
  blockRate: number;
  latencyP50: number | null;
  latencyP99: number | null;
  categories: Record<string, number>;
}

export interface Stats {
  from: string;
  to: string;
  bucket: 'minute' | 'hour' | 'day';
  buckets: (Counts & { start: string })[];
  totals: Counts;
}

export interface Usage {
  accountId: string;
  month: string;
  evaluations: number;
  breakdown: { text: number; image: number; videoFrames: number };
  monthlyQuota: number | null;
  remaining: number | null;
  trialEndsAt: string | null;
}

/** As the SDK's generated OpenAPI types have it (a type-only import: nothing is bundled). */
export type KeyUsage = paths['/v1/usage/keys']['get']['responses'][200]['content']['application/json'];
