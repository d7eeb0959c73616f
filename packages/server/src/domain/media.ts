/** What a decision keeps of an image (decisions §4): a reference and fingerprints, never the bytes. */
export interface MediaRef {
  /** The URL, or `sha256:<hex>` for inline bytes. */
  ref: string;
  sha256: string;
  bytes: number;
  format: 'jpeg' | 'png' | 'webp' | 'gif';
  width: number;
  height: number;
  /** 64-bit difference hash (dHash) as 16 hex digits: near-identical images differ in few bits. */
  phash: string;
}
