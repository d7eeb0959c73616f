import { AppError } from '../errors.ts';

/** Line and column of a path in the policy's YAML. */
export type Position = (path: (string | number)[]) => { line?: number; column?: number };

/** One validated entry of a named-rule list: its mapping, index, field path and the resource it names. */
export interface NamedRule {
  rule: Record<string, unknown>;
  index: number;
  field: string;
  name: string;
}

/**
 * The shape every `banks:` and `lists:` entry of a policy shares: a list of at most `max` mappings, each with only
 * `keys`, naming a resource (`nameKey`, matching `pattern`) at most once. Errors are 422 INVALID_POLICY with the
 * position. Returns nothing for an absent list; each caller validates its own remaining keys.
 */
export function parseNamedRules(
  raw: unknown,
  at: Position,
  spec: {
    /** The policy key: `banks`, `lists`. */
    key: string;
    /** The entry key naming the resource: `bank`, `list`. */
    nameKey: string;
    keys: ReadonlySet<string>;
    pattern: RegExp;
    max: number;
    /** What a mapping holds, for the error: "bank and action". */
    holds: string;
  },
): NamedRule[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.length > spec.max) {
    throw new AppError('INVALID_POLICY', `\`${spec.key}\` must be a list of at most ${spec.max} entries`, {
      field: spec.key,
      ...at([]),
    });
  }
  const seen = new Set<string>();
  return raw.map((entry, index): NamedRule => {
    const field = `${spec.key}[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new AppError('INVALID_POLICY', `${field} must be a mapping with ${spec.holds}`, {
        field,
        ...at([index]),
      });
    }
    const rule = entry as Record<string, unknown>;
    for (const key of Object.keys(rule)) {
      if (!spec.keys.has(key)) {
        throw new AppError('INVALID_POLICY', `Unknown key "${key}" in ${field}`, {
          field,
          key,
          allowed: [...spec.keys],
          ...at([index, key]),
        });
      }
    }
    const name = rule[spec.nameKey];
    if (typeof name !== 'string' || !spec.pattern.test(name)) {
      throw new AppError(
        'INVALID_POLICY',
        `${field}.${spec.nameKey} must be a ${spec.nameKey} name (1–64 of A-Z, a-z, 0-9, _ and -)`,
        { field: `${field}.${spec.nameKey}`, ...at([index, spec.nameKey]) },
      );
    }
    if (seen.has(name)) {
      throw new AppError(
        'INVALID_POLICY',
        `${spec.nameKey[0]!.toUpperCase()}${spec.nameKey.slice(1)} "${name}" is named twice`,
        { field: `${field}.${spec.nameKey}`, ...at([index, spec.nameKey]) },
      );
    }
    seen.add(name);
    return { rule, index, field, name };
  });
}
