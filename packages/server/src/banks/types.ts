import type { Action } from '../domain/taxonomy.ts';

export type HashType = 'pdq' | 'sha256' | 'md5';
export const HASH_TYPES: readonly HashType[] = ['pdq', 'sha256', 'md5'];

/** A policy's use of a bank (policy YAML `banks:`): what to do when content matches it. */
export interface PolicyBankRule {
  /** The bank's name within the account. */
  bank: string;
  action: Action;
  /** Largest PDQ Hamming distance that counts as a match (of 256 bits); exact digests always match at 0. */
  maxDistance: number;
}

/** The bank item that decided a decision: named in its result (`bankMatch`) and stored with it. */
export interface BankMatch {
  bank: string;
  bankId: string;
  itemId: string;
  label: string | null;
  /** Which hash matched: an exact digest of the bytes, or PDQ within `maxDistance`. */
  matchedOn: HashType;
  distance: number;
  maxDistance: number;
  action: Action;
  /** The image that matched (its URL or `sha256:<hex>`; a video frame's position as `frame:<n>`). */
  contentRef: string;
}

/** The hashes of one image, computed once per check and compared with every bank of the policy. */
export interface ImageHashes {
  pdq: string | null;
  quality: number;
  sha256: string;
  md5: string;
}
