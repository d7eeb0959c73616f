import { type Document, isMap, isScalar, LineCounter, type Node, parseDocument, visit } from 'yaml';
import type { PolicyBankRule } from '../../banks/types.ts';
import type { PolicyListRule } from '../../lists/types.ts';
import {
  parseReviewRules,
  REVIEW_CATEGORY_KEY,
  REVIEW_TOP_LEVEL_KEYS,
  type ReviewRules,
} from '../../review/policy-rules.ts';
import { AppError } from '../errors.ts';
import { ACTIONS, type Action, type CategoryName, POLICY_CATEGORY_NAMES } from '../taxonomy.ts';
import { parsePolicyBanks } from './parse-banks.ts';
import { parsePolicyLists } from './parse-lists.ts';
import type { PolicyCategory } from './policy.ts';
import { type PolicyRouting, parseRouting, ROUTING_KEYS } from './routing.ts';

export const MAX_POLICY_YAML_BYTES = 64 * 1024;

const MAX_ALIASES = 20;
const TOP_LEVEL_KEYS = new Set<string>([
  'name',
  'description',
  'categories',
  'banks',
  'lists',
  ...ROUTING_KEYS,
  ...REVIEW_TOP_LEVEL_KEYS,
]);
const CATEGORY_KEYS = new Set(['threshold', 'action', REVIEW_CATEGORY_KEY]);

/** The first key that repeats an earlier key of its mapping, in one pass over each mapping. */
function firstDuplicateKey(doc: Document): Node | null {
  let found: Node | null = null;
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const item of map.items) {
        const key = isScalar(item.key) ? item.key.value : String(item.key);
        if (seen.has(key)) {
          found = item.key as Node;
          return visit.BREAK;
        }
        seen.add(key);
      }
      return undefined;
    },
  });
  return found;
}

export interface ParsedPolicy {
  name: string;
  description: string | null;
  categories: Partial<Record<CategoryName, PolicyCategory>>;
  /** Hash banks screened before any model runs (issue 20); absent when the policy names none. */
  banks?: PolicyBankRule[];
  /** Match lists applied to text (issue 18); absent when the policy names none. */
  lists?: PolicyListRule[];
  /** Which providers judge the policy's text; null: the bundled models alone. */
  routing: PolicyRouting | null;
  /** What goes to human review (issue 18); absent when nothing does. */
  review?: ReviewRules;
}

/**
 * Parses and validates policy YAML (decisions §2). Every failure is a 422 with the spec code and, where the
 * document has a position for it, `details.line` / `details.column` (1-based).
 */
export function parsePolicyYaml(source: string): ParsedPolicy {
  if (Buffer.byteLength(source, 'utf8') > MAX_POLICY_YAML_BYTES) {
    throw new AppError('CONTENT_TOO_LARGE', 'Policy YAML is larger than 64 KB', {
      field: 'yamlContent',
      maxBytes: MAX_POLICY_YAML_BYTES,
    });
  }
  const lineCounter = new LineCounter();
  // duplicate keys are found below in one pass: yaml's own uniqueKeys check compares every key with every earlier
  // one (a 61 KB policy of 16,000 keys held the event loop for 3.4 s)
  const doc = parseDocument(source, { lineCounter, uniqueKeys: false, prettyErrors: false, strict: true });
  const position = (node: Node | null | undefined): { line?: number; column?: number } => {
    const offset = node?.range?.[0];
    if (offset === undefined) return {};
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const firstError = doc.errors[0];
  if (firstError) {
    const { line, col } = lineCounter.linePos(firstError.pos[0]);
    throw new AppError('INVALID_YAML', `YAML is malformed: ${firstError.message.split('\n')[0]}`, {
      line,
      column: col,
    });
  }
  const duplicate = firstDuplicateKey(doc);
  if (duplicate) {
    throw new AppError('INVALID_YAML', 'YAML is malformed: Map keys must be unique', {
      ...position(duplicate),
      reason: 'duplicate_key',
    });
  }
  let value: unknown;
  try {
    // maxAliasCount bounds alias expansion, so a "billion laughs" document fails fast instead of exhausting memory.
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (error) {
    // alias expansion over the limit (or a document yaml cannot turn into values): the whole document is at fault
    const { message } = error as Error;
    const aliases = /alias/i.test(message);
    throw new AppError('INVALID_YAML', `YAML could not be read: ${message}`, {
      field: 'yamlContent',
      reason: aliases ? 'too_many_aliases' : 'unreadable',
      ...(aliases && { maxAliases: MAX_ALIASES }),
    });
  }
  if (!isMap(doc.contents) || typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError('INVALID_YAML', 'A policy must be a YAML mapping with `name` and `categories`', {
      field: 'yamlContent',
      reason: doc.contents === null ? 'empty' : 'not_a_mapping',
      ...position(doc.contents),
    });
  }
  const root = value as Record<string, unknown>;
  for (const key of Object.keys(root)) {
    if (!TOP_LEVEL_KEYS.has(key)) {
      throw new AppError('INVALID_POLICY', `Unknown top-level key "${key}"`, {
        key,
        allowed: [...TOP_LEVEL_KEYS],
        ...position(doc.getIn([key], true) as Node),
      });
    }
  }
  if (typeof root.name !== 'string' || root.name.trim() === '' || root.name.length > 200) {
    throw new AppError('INVALID_POLICY', '`name` must be a non-empty string of at most 200 characters', {
      field: 'name',
      ...position((doc.get('name', true) as Node) ?? doc.contents),
    });
  }
  const description = root.description;
  if (description !== undefined && description !== null && typeof description !== 'string') {
    throw new AppError('INVALID_POLICY', '`description` must be a string', {
      field: 'description',
      ...position(doc.get('description', true) as Node),
    });
  }
  const categoriesNode = doc.get('categories', true) as Node | undefined;
  const rawCategories = root.categories;
  if (
    !isMap(categoriesNode) ||
    typeof rawCategories !== 'object' ||
    rawCategories === null ||
    Object.keys(rawCategories).length === 0
  ) {
    throw new AppError('INVALID_POLICY', '`categories` must be a mapping with at least one category', {
      field: 'categories',
      ...position(categoriesNode ?? doc.contents),
    });
  }
  const categories: Partial<Record<CategoryName, PolicyCategory>> = {};
  for (const [name, raw] of Object.entries(rawCategories as Record<string, unknown>)) {
    const at = (key?: string) =>
      position(
        (key ? doc.getIn(['categories', name, key], true) : doc.getIn(['categories', name], true)) as Node,
      );
    if (!(POLICY_CATEGORY_NAMES as readonly string[]).includes(name)) {
      const keyNode = categoriesNode.items.find((pair) => isScalar(pair.key) && pair.key.value === name)?.key;
      throw new AppError('INVALID_POLICY', `Unknown category "${name}"`, {
        category: name,
        allowed: [...POLICY_CATEGORY_NAMES],
        ...position(keyNode as Node),
      });
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new AppError('INVALID_POLICY', `Category "${name}" must be a mapping with threshold and action`, {
        category: name,
        ...at(),
      });
    }
    const entry = raw as Record<string, unknown>;
    for (const key of Object.keys(entry)) {
      if (!CATEGORY_KEYS.has(key)) {
        throw new AppError('INVALID_POLICY', `Unknown key "${key}" in category "${name}"`, {
          category: name,
          key,
          allowed: [...CATEGORY_KEYS],
          ...at(key),
        });
      }
    }
    if (entry.threshold === undefined) {
      throw new AppError('INVALID_THRESHOLD', `Category "${name}" has no threshold`, {
        category: name,
        ...at(),
      });
    }
    const threshold = entry.threshold;
    if (typeof threshold !== 'number' || !Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
      throw new AppError('INVALID_THRESHOLD', `Threshold of "${name}" must be a number from 0 to 1`, {
        category: name,
        value: threshold,
        ...at('threshold'),
      });
    }
    if (entry.action === undefined) {
      throw new AppError('INVALID_ACTION', `Category "${name}" has no action`, { category: name, ...at() });
    }
    if (typeof entry.action !== 'string' || !(ACTIONS as readonly string[]).includes(entry.action)) {
      throw new AppError('INVALID_ACTION', `Action of "${name}" must be one of allow, warn, flag, block`, {
        category: name,
        value: entry.action,
        allowed: [...ACTIONS],
        ...at('action'),
      });
    }
    categories[name as CategoryName] = { threshold, action: entry.action as Action };
  }
  const banks = parsePolicyBanks(root.banks, (path) => position(doc.getIn(['banks', ...path], true) as Node));
  const lists = parsePolicyLists(root.lists, (path) => position(doc.getIn(['lists', ...path], true) as Node));
  const routing = parseRouting(root, doc, position);
  const review = parseReviewRules(root, rawCategories as Record<string, unknown>, (path) =>
    position(doc.getIn(path, true) as Node),
  );
  return {
    name: root.name.trim(),
    description: (description as string | undefined) ?? null,
    categories,
    ...(banks.length > 0 && { banks }),
    ...(lists.length > 0 && { lists }),
    routing,
    ...(review && { review }),
  };
}
