import type { BlobStore } from '../blobs/blob-store.ts';
import { signEvidence, verifyEvidence } from '../media/video/evidence-token.ts';

const PREFIX = 'evidence';
const NAME = /^dec_[A-Za-z0-9]+\/\d+$/;

export interface EvidenceLink {
  url: string;
  expiresAt: string;
}

/**
 * Evidence frames of video results (decisions §8): a JPEG per triggered frame in the blob store, linked by
 * `{publicUrl}/v1/evidence/{token}`, where the token signs `<decisionId>/<frame>` and the expiry with a server secret
 * (created once, kept in the database, never logged). Forged, altered or expired tokens find nothing.
 */
export class EvidenceStore {
  private secret: Promise<Buffer> | null = null;

  constructor(
    private readonly blobs: BlobStore,
    private readonly secrets: { secret(name: string): Promise<Buffer> },
    private readonly options: { publicUrl: string; ttlMs: number },
  ) {}

  get ttlMs(): number {
    return this.options.ttlMs;
  }

  /** Keeps a frame and returns its link, valid for the configured lifetime from now. */
  async keep(decisionId: string, frameNumber: number, jpeg: Uint8Array): Promise<EvidenceLink> {
    const name = `${decisionId}/${frameNumber}`;
    await this.blobs.put(`${PREFIX}/${name}.jpg`, jpeg);
    // Whole seconds: the token carries Unix seconds, and expiresAt must say exactly when it stops working.
    const expiresAt = new Date(Math.floor((Date.now() + this.options.ttlMs) / 1000) * 1000);
    const token = signEvidence(await this.signingSecret(), { key: name, expiresAt });
    return { url: `${this.options.publicUrl}/v1/evidence/${token}`, expiresAt: expiresAt.toISOString() };
  }

  /** The JPEG behind a token, or null when the token is forged, expired or the frame is gone. */
  async fetch(token: string): Promise<{ bytes: Buffer; expiresAt: Date } | null> {
    const claim = verifyEvidence(await this.signingSecret(), token);
    if (!claim || !NAME.test(claim.key)) return null;
    const bytes = await this.blobs.get(`${PREFIX}/${claim.key}.jpg`);
    return bytes ? { bytes, expiresAt: claim.expiresAt } : null;
  }

  /** Removes frames whose links have expired (with a minute's margin). */
  sweep(): Promise<number> {
    return this.blobs.deleteOlderThan(PREFIX, new Date(Date.now() - this.options.ttlMs - 60_000));
  }

  private signingSecret(): Promise<Buffer> {
    this.secret ??= this.secrets.secret('evidence-signing-key').catch((error: unknown) => {
      this.secret = null;
      throw error;
    });
    return this.secret;
  }
}
