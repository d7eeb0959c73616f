/** Bounds of the banks feature, in one place. */

/** Bank names: what a policy's `banks:` entries refer to. `bnk_` is kept for IDs. */
export const BANK_NAME_PATTERN = /^(?!bnk_)[A-Za-z0-9_-]{1,64}$/;
export const MAX_BANKS_PER_ACCOUNT = 100;
export const MAX_ITEMS_PER_BANK = 1_000_000;
export const MAX_LABEL_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 500;
/** Banks one policy may screen. */
export const MAX_POLICY_BANKS = 20;
/** PDQ's customary match threshold (bits of 256). */
export const DEFAULT_MAX_DISTANCE = 31;
/** Below this PDQ quality an image is too flat for its hash to mean much: only exact digests are used. */
export const MIN_PDQ_QUALITY = 50;
/** A CSV import: rows per request and bytes of body. */
export const MAX_IMPORT_ROWS = 100_000;
export const MAX_IMPORT_BYTES = 16 * 1024 * 1024;
