import sharp from 'sharp';

/**
 * One decoded image at several square sizes. The image is decoded once, at the largest size any model needs;
 * smaller sizes are resized from those raw pixels (no second decode), each once, on first request.
 */
export class SquarePixels {
  private readonly bySize = new Map<number, Promise<Uint8Array>>();

  constructor(
    readonly largest: number,
    pixels: Uint8Array,
  ) {
    this.bySize.set(largest, Promise.resolve(pixels));
  }

  at(size: number): Promise<Uint8Array> {
    let pixels = this.bySize.get(size);
    if (!pixels) {
      pixels = this.bySize.get(this.largest)!.then((source) =>
        sharp(source, { raw: { width: this.largest, height: this.largest, channels: 3 } })
          .resize(size, size, { fit: 'fill' })
          .raw()
          .toBuffer(),
      );
      this.bySize.set(size, pixels);
    }
    return pixels;
  }
}
