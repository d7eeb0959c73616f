import { Type } from 'typebox';
import { Action, CategoryResult, Metadata } from './common.ts';
import { MediaList } from './media.ts';
import { FrameResult } from './video.ts';

export const MultimodalBody = Type.Object(
  {
    text: Type.Optional(Type.String({ description: 'Text to judge (≤ 32 KB of UTF-8)' })),
    images: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: 10,
        description:
          'Up to 10 images: https URLs, data:image/...;base64, URIs or raw base64; each ≤ 20 MB. ' +
          'More than 10 → 422 TOO_MANY_ITEMS.',
      }),
    ),
    video: Type.Optional(
      Type.String({
        description:
          'A video URL (https, ≤ 100 MB, ≤ 300 s), judged synchronously on 10 frames spread over the video; ' +
          'each frame counts one quota unit. Long videos belong to /v1/video/check.',
      }),
    ),
    policyId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    context: Type.Optional(
      Type.Object({
        language: Type.Optional(Type.String({ description: 'ISO 639-1 (or auto) for the text; default en' })),
        useCase: Type.Optional(Type.String({ description: 'Hint, e.g. social_post, comment, profile' })),
        userId: Type.Optional(Type.String()),
        userReputation: Type.Optional(Type.Number()),
        locale: Type.Optional(Type.String()),
      }),
    ),
    metadata: Type.Optional(Metadata),
    doNotStore: Type.Optional(
      Type.Boolean({
        description:
          'true: the decision is stored (and sent in events) without its text, image and video references, the ' +
          'text of its highlights and the text read in its images; the answer still carries them',
      }),
    ),
    requestId: Type.Optional(Type.String({ maxLength: 255, description: 'Idempotency key' })),
  },
  { description: 'At least one of text, images or video is required (else 422 MISSING_REQUIRED_FIELD).' },
);

export const MultimodalItem = Type.Object({
  index: Type.Integer({
    description: 'Position of the item: the text first (when given), then the images in order',
  }),
  contentType: Type.Union([Type.Literal('text'), Type.Literal('image'), Type.Literal('video')]),
  contentRef: Type.Optional(
    Type.String({
      description: 'For images: the URL, or sha256:<hex> of inline bytes; for a video: its URL',
    }),
  ),
  safe: Type.Boolean(),
  flagged: Type.Boolean(),
  action: Action,
  categories: Type.Array(CategoryResult),
  provider: Type.String(),
  modelVersion: Type.String(),
  latency: Type.Number({ description: 'Milliseconds spent on this item' }),
  cost: Type.Number({ description: 'USD' }),
  frames: Type.Optional(Type.Array(FrameResult, { description: 'For a video: the sampled frames' })),
  bankMatch: Type.Optional(Type.Ref('BankMatch')),
});

export const MultimodalResult = Type.Object({
  decisionId: Type.String(),
  safe: Type.Boolean(),
  flagged: Type.Boolean(),
  action: Action,
  categories: Type.Array(CategoryResult, {
    description: 'Per policy category, the highest score of any item (the overall verdict)',
  }),
  results: Type.Array(MultimodalItem),
  totalLatency: Type.Number({ description: 'Server-side milliseconds of the whole request' }),
  totalCost: Type.Number({ description: 'USD' }),
  provider: Type.String(),
  policyId: Type.String(),
  policyVersion: Type.Integer(),
  contentType: Type.Literal('multimodal'),
  timestamp: Type.String({ format: 'date-time' }),
  media: Type.Optional(MediaList),
  bankMatch: Type.Optional(Type.Ref('BankMatch')),
});
