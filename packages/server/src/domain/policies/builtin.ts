import type { Policy } from './policy.ts';

const BUILTIN_TIMESTAMP = '2026-01-01T00:00:00.000Z';

const DEFAULT_YAML = `name: Default
description: Balanced moderation for general user content.
categories:
  hate: { threshold: 0.5, action: block }
  harassment: { threshold: 0.5, action: flag }
  violence: { threshold: 0.5, action: flag }
  sexual: { threshold: 0.5, action: flag }
  self_harm: { threshold: 0.5, action: flag }
  toxicity: { threshold: 0.5, action: flag }
  profanity: { threshold: 0.8, action: warn }
  spam: { threshold: 0.7, action: warn }
  suggestive: { threshold: 0.8, action: warn }
`;

const STRICT_YAML = `name: Strict
description: Low thresholds and blocking, for children's products and sensitive communities.
categories:
  hate: { threshold: 0.3, action: block }
  harassment: { threshold: 0.3, action: block }
  violence: { threshold: 0.3, action: block }
  sexual: { threshold: 0.3, action: block }
  self_harm: { threshold: 0.3, action: flag }
  toxicity: { threshold: 0.3, action: block }
  profanity: { threshold: 0.3, action: flag }
  spam: { threshold: 0.45, action: flag }
  suggestive: { threshold: 0.6, action: flag }
`;

const PERMISSIVE_YAML = `name: Permissive
description: Acts only on clear, severe harms; tolerates profanity and adult language.
categories:
  hate: { threshold: 0.7, action: flag }
  harassment: { threshold: 0.7, action: warn }
  violence: { threshold: 0.7, action: flag }
  sexual: { threshold: 0.7, action: warn }
  self_harm: { threshold: 0.7, action: flag }
  toxicity: { threshold: 0.7, action: warn }
  spam: { threshold: 0.8, action: warn }
`;

export const BUILTIN_POLICY_SOURCES: Record<string, string> = {
  default: DEFAULT_YAML,
  strict: STRICT_YAML,
  permissive: PERMISSIVE_YAML,
};

export function builtinPolicy(
  policyId: string,
  parsed: Pick<Policy, 'name' | 'description' | 'categories' | 'routing'>,
): Policy {
  return {
    policyId,
    ...parsed,
    version: 1,
    builtin: true,
    accountId: null,
    yaml: BUILTIN_POLICY_SOURCES[policyId]!,
    createdAt: BUILTIN_TIMESTAMP,
    updatedAt: BUILTIN_TIMESTAMP,
  };
}
