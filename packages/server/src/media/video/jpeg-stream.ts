/**
 * Splits a stream of concatenated JPEG images (ffmpeg `-f image2pipe -c:v mjpeg`) into single images as bytes
 * arrive. Boundaries come from walking the JPEG markers (segment lengths, then the entropy-coded data up to the next
 * real marker), not from searching for FFD9: table segments may legally hold those bytes.
 */
export class JpegStreamSplitter {
  private buffer: Buffer = Buffer.alloc(0);
  /** Where the marker walk of the current image resumes. */
  private pos = 0;
  private inEntropy = false;
  /** Largest single image accepted; anything bigger means a corrupt stream. */
  constructor(private readonly maxImageBytes = 32 * 1024 * 1024) {}

  /** Feeds bytes; returns the images completed by them. */
  push(chunk: Buffer): Buffer[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const images: Buffer[] = [];
    for (;;) {
      const end = this.scan();
      if (end === null) break;
      images.push(Buffer.from(this.buffer.subarray(0, end)));
      this.buffer = this.buffer.subarray(end);
      this.pos = 0;
      this.inEntropy = false;
    }
    if (this.buffer.length > this.maxImageBytes) throw new Error('An extracted frame is too large');
    return images;
  }

  /** Bytes left over that do not form a complete image (non-zero at the end of a stream means truncation). */
  get pendingBytes(): number {
    return this.buffer.length;
  }

  /** The end offset of the first complete image in the buffer, or null when more bytes are needed. */
  private scan(): number | null {
    const b = this.buffer;
    if (this.pos === 0) {
      if (b.length < 2) return null;
      if (b[0] !== 0xff || b[1] !== 0xd8) throw new Error('The frame stream is not JPEG');
      this.pos = 2;
    }
    for (;;) {
      if (this.inEntropy) {
        // Entropy-coded data: 0xFF is stuffed as FF00; FFD0–FFD7 are restart markers; anything else ends it.
        let i = this.pos;
        for (;;) {
          i = b.indexOf(0xff, i);
          if (i < 0 || i + 1 >= b.length) {
            this.pos = i < 0 ? b.length : i;
            return null;
          }
          const next = b[i + 1]!;
          if (next === 0x00 || (next >= 0xd0 && next <= 0xd7) || next === 0xff) {
            i += next === 0xff ? 1 : 2;
            continue;
          }
          break;
        }
        this.pos = i;
        this.inEntropy = false;
      }
      let i = this.pos;
      if (i + 1 >= b.length) return null;
      if (b[i] !== 0xff) throw new Error('Corrupt JPEG in the frame stream');
      while (i + 1 < b.length && b[i + 1] === 0xff) i++; // fill bytes
      if (i + 1 >= b.length) return null;
      const marker = b[i + 1]!;
      if (marker === 0xd9) return i + 2;
      if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
        this.pos = i + 2;
        continue;
      }
      if (i + 3 >= b.length) return null;
      const length = b.readUInt16BE(i + 2);
      if (i + 2 + length > b.length) return null;
      this.pos = i + 2 + length;
      if (marker === 0xda) this.inEntropy = true;
    }
  }
}
