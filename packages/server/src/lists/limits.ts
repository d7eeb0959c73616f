/** Bounds of the match lists feature, in one place. */

/** List names: what a policy's `lists:` entries refer to. `lst_` is kept for IDs. */
export const LIST_NAME_PATTERN = /^(?!lst_)[A-Za-z0-9_-]{1,64}$/;
export const MAX_LISTS_PER_ACCOUNT = 100;
export const MAX_ENTRIES_PER_LIST = 100_000;
/** Entries one request may add or remove (create, add, delete, import). */
export const MAX_ENTRIES_PER_CALL = 10_000;
/** Characters of one term or phrase as written. */
export const MAX_ENTRY_LENGTH = 200;
/** Tokens of one phrase after normalisation: a match walks at most this many tokens from each token of the text. */
export const MAX_PHRASE_TOKENS = 8;
/** Regex entries of one list, and characters of one pattern: each runs over the whole normalised text. */
export const MAX_REGEX_PER_LIST = 50;
export const MAX_REGEX_LENGTH = 200;
/** Lists one policy may name. */
export const MAX_POLICY_LISTS = 20;
/** Matches reported per list in a decision (the first ones in the text). */
export const MAX_MATCHES_PER_LIST = 10;
export const MAX_DESCRIPTION_LENGTH = 500;
/** Plain-text import: bytes of body (one entry a line). */
export const MAX_IMPORT_BYTES = 4 * 1024 * 1024;
