import type { Action, CategoryName } from '../domain/taxonomy.ts';

export type ListKind = 'block' | 'allow';
export type EntryType = 'term' | 'regex';

/**
 * What an allow-list hit does to the model's categories: a category's action at most this action (a string), or its
 * score at most this number (so it may no longer trigger).
 */
export type ListCaps = Partial<Record<CategoryName, Action | number>>;

/** A policy's use of a list (policy YAML `lists:`); `action` / `caps` default to the list's own. */
export interface PolicyListRule {
  /** The list's name within the account. */
  list: string;
  action?: Action;
  caps?: ListCaps;
}

/** One list entry that matched the text: named in the decision (`listMatches`). */
export interface ListMatch {
  list: string;
  listId: string;
  kind: ListKind;
  entryId: string;
  /** The entry as written in the list (never the content). */
  entry: string;
  entryType: EntryType;
  /** UTF-16 offsets of the matched span in the checked text. */
  start: number;
  end: number;
  /** a block list's action under this policy */
  action?: Action;
  /** an allow list's caps under this policy */
  caps?: ListCaps;
}
