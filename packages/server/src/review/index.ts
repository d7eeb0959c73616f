import type { AuditSink } from '../audit/types.ts';
import type { DecisionService } from '../domain/decisions.ts';
import type { EventOutbox } from '../domain/events.ts';
import type { DatabaseHandle } from '../storage/database.ts';
import { AppealService } from './appeals.ts';
import { ReviewRepository } from './repository.ts';
import { type ReviewDeps, ReviewService } from './service.ts';
import { StatementService } from './statements.ts';

/** Human review (issue 18): queues and reviews, appeals, statements of reasons. */
export interface ReviewModule {
  queue: ReviewService;
  appeals: AppealService;
  statements: StatementService;
  /** Shared by the three. */
  deps: ReviewDeps;
}

export function createReview(
  database: DatabaseHandle,
  deps: {
    events: EventOutbox;
    decisions: DecisionService;
    keyName: (keyId: string) => Promise<string | null>;
    audit: AuditSink;
  },
): ReviewModule {
  const shared: ReviewDeps = {
    repository: new ReviewRepository(database.db, database.engine),
    events: deps.events,
    findDecision: (accountId, decisionId) => deps.decisions.find(accountId, decisionId),
    keyName: deps.keyName,
    audit: deps.audit,
  };
  return {
    queue: new ReviewService(shared),
    appeals: new AppealService(shared),
    statements: new StatementService(shared),
    deps: shared,
  };
}
