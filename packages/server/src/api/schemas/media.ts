import { Type } from 'typebox';

export const MediaRef = Type.Object(
  {
    ref: Type.String({ description: 'The image URL, or sha256:<hex> for inline (base64) images' }),
    sha256: Type.String({ description: 'SHA-256 of the image bytes, hex' }),
    bytes: Type.Integer({ description: 'Size of the image in bytes' }),
    format: Type.Union([
      Type.Literal('jpeg'),
      Type.Literal('png'),
      Type.Literal('webp'),
      Type.Literal('gif'),
    ]),
    width: Type.Integer(),
    height: Type.Integer(),
    phash: Type.String({
      description: '64-bit perceptual difference hash (dHash), 16 hex digits; compare by Hamming distance',
    }),
  },
  { description: 'An evaluated image, stored by reference and fingerprint; the bytes are never stored' },
);

export const MediaList = Type.Array(MediaRef, {
  description:
    'Images evaluated for this decision (extension field; present for image and multi-modal checks)',
});

export const OcrResult = Type.Object(
  {
    text: Type.String({ description: 'The text read, one line per region' }),
    language: Type.String({ description: 'The language the text model judged it in (ISO 639-1)' }),
    confidence: Type.Number({ description: 'Mean OCR confidence of the kept words, 0–1' }),
    regions: Type.Array(
      Type.Object({
        text: Type.String(),
        confidence: Type.Number(),
        box: Type.Object({
          x: Type.Integer(),
          y: Type.Integer(),
          width: Type.Integer(),
          height: Type.Integer(),
        }),
      }),
      { description: 'Lines of text and their boxes in the image, in pixels' },
    ),
  },
  {
    description:
      'Extension field: text read in the image (offline OCR) and judged by the text model, so the text ' +
      'categories are evaluated; highlights point into `text`',
  },
);
