import type { PolicyBankRule } from '../../banks/types.ts';
import type { PolicyListRule } from '../../lists/types.ts';
import type { Action, CategoryName } from '../taxonomy.ts';
import type { PolicyRouting } from './routing.ts';

export interface PolicyCategory {
  threshold: number;
  action: Action;
}

/** A policy as the domain sees it. `categories` keeps the author's order (decisions §1). */
export interface Policy {
  policyId: string;
  name: string;
  description: string | null;
  categories: Partial<Record<CategoryName, PolicyCategory>>;
  /** Hash banks screened before any model runs; absent when none. */
  banks?: PolicyBankRule[];
  /** Match lists applied to text; absent when none. */
  lists?: PolicyListRule[];
  /** Which providers judge text under this policy; null or absent: `local` alone. */
  routing?: PolicyRouting | null;
  version: number;
  builtin: boolean;
  accountId: string | null;
  yaml: string;
  createdAt: string;
  updatedAt: string;
}

export const POLICY_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export function policyCategoryEntries(policy: Pick<Policy, 'categories'>): [CategoryName, PolicyCategory][] {
  return Object.entries(policy.categories) as [CategoryName, PolicyCategory][];
}
