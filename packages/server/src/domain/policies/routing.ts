import type { Document, Node } from 'yaml';
import { AppError } from '../errors.ts';

/**
 * Which providers judge a policy's text (issue 19): `provider` (default `local`), `fallback` tried in order when it
 * fails (`local` there means "answer with the bundled model"), or a cascade: `escalate` sends only texts whose local
 * scores fall within `band` of a threshold to a stronger provider.
 */
export interface PolicyRouting {
  provider: string;
  fallback: string[];
  escalate: { provider: string; when: 'uncertain'; band: number } | null;
}

export const ROUTING_KEYS = ['provider', 'fallback', 'escalate'] as const;
const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const MAX_FALLBACKS = 5;
export const DEFAULT_BAND = 0.15;

type Position = (node: Node | null | undefined) => { line?: number; column?: number };

/** Validates the routing keys of a policy document; null when it has none (everything stays local). */
export function parseRouting(
  root: Record<string, unknown>,
  doc: Document,
  position: Position,
): PolicyRouting | null {
  if (ROUTING_KEYS.every((k) => root[k] === undefined)) return null;
  const at = (path: (string | number)[]) => position(doc.getIn(path, true) as Node);
  const fail = (message: string, path: (string | number)[], extra: Record<string, unknown> = {}): never => {
    throw new AppError('INVALID_POLICY', message, { field: path.join('.'), ...extra, ...at(path) });
  };
  const name = (value: unknown, path: (string | number)[]): string => {
    if (typeof value !== 'string' || !NAME.test(value))
      fail(`\`${path.join('.')}\` must be a provider name`, path);
    return value as string;
  };
  const provider = root.provider === undefined ? 'local' : name(root.provider, ['provider']);
  let fallback: string[] = [];
  if (root.fallback !== undefined) {
    if (!Array.isArray(root.fallback) || root.fallback.length > MAX_FALLBACKS)
      fail(`\`fallback\` must be a list of at most ${MAX_FALLBACKS} provider names`, ['fallback']);
    fallback = (root.fallback as unknown[]).map((v, i) => name(v, ['fallback', i]));
    const seen = new Set<string>();
    fallback.forEach((f, i) => {
      if (seen.has(f) || (f === provider && root.escalate === undefined))
        fail(`"${f}" appears twice in provider and fallback`, ['fallback', i]);
      seen.add(f);
    });
  }
  let escalate: PolicyRouting['escalate'] = null;
  if (root.escalate !== undefined) {
    const raw = root.escalate;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      fail('`escalate` must be a mapping like { provider: guard, when: uncertain, band: 0.15 }', [
        'escalate',
      ]);
    const e = raw as Record<string, unknown>;
    for (const key of Object.keys(e))
      if (!['provider', 'when', 'band'].includes(key))
        fail(`Unknown key "${key}" in escalate`, ['escalate', key], {
          allowed: ['provider', 'when', 'band'],
        });
    const target = name(e.provider, ['escalate', 'provider']);
    if (target === 'local')
      fail('`escalate.provider` must be another provider than local', ['escalate', 'provider']);
    if (provider !== 'local')
      fail('A policy either escalates from local or names one `provider`, not both', ['provider']);
    if (e.when !== undefined && e.when !== 'uncertain')
      fail('`escalate.when` supports only "uncertain"', ['escalate', 'when']);
    const band = e.band ?? DEFAULT_BAND;
    if (typeof band !== 'number' || !Number.isFinite(band) || band <= 0 || band > 0.5)
      fail('`escalate.band` must be a number above 0 and at most 0.5', ['escalate', 'band']);
    if (fallback.includes(target)) fail(`"${target}" is both escalated to and a fallback`, ['fallback']);
    escalate = { provider: target, when: 'uncertain', band: band as number };
  }
  return { provider, fallback, escalate };
}

/** The providers a routing may call, in order of use. */
export function routedProviders(routing: PolicyRouting | null | undefined): string[] {
  if (!routing) return ['local'];
  return [...new Set(['local', routing.escalate?.provider ?? routing.provider, ...routing.fallback])];
}
