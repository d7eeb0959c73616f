import { queryParameter, queryWindow, rejectUnknownParameters } from '../domain/decision-filters.ts';
import { AppError } from '../domain/errors.ts';
import type { PolicyService } from '../domain/policies/service.ts';
import { type Principal, requireAnyScope } from '../domain/principal.ts';
import type { CategoryName } from '../domain/taxonomy.ts';
import { type LabelledScore, qualityReport } from './report.ts';
import type { QualityRepository, ReviewedDecision } from './repository.ts';

const DEFAULT_TARGET_PRECISION = 0.9;

/**
 * What one reviewed decision says about each category. Named categories are a full label: those named apply, the
 * other judged ones do not. A review that names none is read by its outcome: a decision left (or made) `allow`
 * means no category applies; one whose restriction stood confirms the categories that triggered and says nothing
 * about the others.
 */
export function labelsOf(d: ReviewedDecision): LabelledScore[] {
  const judged = d.categories.filter((c) => c.evaluated);
  const label = (c: (typeof judged)[number], actual: boolean): LabelledScore => ({
    category: c.category as CategoryName,
    score: c.score,
    predicted: c.triggered,
    actual,
  });
  if (d.reviewerCategories.length > 0) {
    return judged.map((c) => label(c, d.reviewerCategories.includes(c.category)));
  }
  if (d.reviewedAction === 'allow') return judged.map((c) => label(c, false));
  return judged.filter((c) => c.triggered).map((c) => label(c, true));
}

/** `GET /v1/quality`: the automated decisions of a policy against its reviewers' labels, per category. */
export class QualityService {
  constructor(
    private readonly repo: QualityRepository,
    private readonly policies: PolicyService,
  ) {}

  async report(principal: Principal, query: Record<string, unknown>) {
    requireAnyScope(principal, 'decisions:read', 'review');
    rejectUnknownParameters(query, ['policyId', 'from', 'to', 'targetPrecision']);
    const policyId = queryParameter(query, 'policyId');
    if (policyId === undefined) {
      throw new AppError('MISSING_REQUIRED_FIELD', 'policyId is required: quality is measured per policy', {
        field: 'policyId',
      });
    }
    const policy = await this.policies.resolve(principal, policyId);
    const window = queryWindow(query);
    const targetText = queryParameter(query, 'targetPrecision');
    const target = targetText === undefined ? DEFAULT_TARGET_PRECISION : Number(targetText);
    if (!/^(0(\.\d+)?|1(\.0+)?)$/.test(targetText ?? '0.9') || !(target > 0)) {
      throw new AppError('INVALID_PARAMETER', 'targetPrecision must be a number above 0 and at most 1', {
        field: 'targetPrecision',
      });
    }
    const { decisions, truncated } = await this.repo.reviewed(principal.accountId, policy.policyId, window);
    const labels = decisions.flatMap(labelsOf);
    const thresholds = Object.fromEntries(
      Object.entries(policy.categories).map(([name, c]) => [name, c!.threshold]),
    );
    return {
      policyId: policy.policyId,
      policyVersion: policy.version,
      from: window.from ?? null,
      to: window.to ?? null,
      targetPrecision: target,
      reviewedDecisions: decisions.length,
      truncated,
      categories: qualityReport(labels, target).map((q) => ({
        ...q,
        currentThreshold: thresholds[q.category] ?? null,
      })),
    };
  }
}
