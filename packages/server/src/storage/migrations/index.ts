import type { Migration } from 'kysely';
import * as core from './0001-core.ts';
import * as media from './0002-media.ts';
import * as jobsWebhooks from './0003-jobs-webhooks.ts';
import * as usage from './0004-usage.ts';
import * as videos from './0005-videos.ts';
import * as replayData from './0006-replay-data.ts';
import * as usageCost from './0007-usage-cost.ts';
import * as banks from './0008-banks.ts';
import * as ocr from './0009-ocr.ts';
import * as consoleSessions from './0010-console-sessions.ts';
import * as review from './0011-review.ts';
import * as policyLifecycle from './0012-policy-lifecycle.ts';
import * as lists from './0013-lists.ts';
import * as decisionSearch from './0014-decision-search.ts';
import * as audit from './0015-audit.ts';
import * as blobs from './0016-blobs.ts';
import * as redactedAddresses from './0019-redacted-addresses.ts';

/** Every migration, in order. Names sort lexically; add new ones with the next number. */
export const migrations: Record<string, Migration> = {
  '0001-core': core,
  '0002-media': media,
  '0003-jobs-webhooks': jobsWebhooks,
  '0004-usage': usage,
  '0005-videos': videos,
  '0006-replay-data': replayData,
  '0007-usage-cost': usageCost,
  '0008-banks': banks,
  '0009-ocr': ocr,
  '0010-console-sessions': consoleSessions,
  '0011-review': review,
  '0012-policy-lifecycle': policyLifecycle,
  '0013-lists': lists,
  '0014-decision-search': decisionSearch,
  '0015-audit': audit,
  '0016-blobs': blobs,
  '0019-redacted-addresses': redactedAddresses,
};
