import { Type } from 'typebox';
import { Action, CategoryResult, Metadata, ProviderAttempts } from './common.ts';
import { MediaList, OcrResult } from './media.ts';
import { HumanLayer } from './review.ts';

export const CheckBody = Type.Object({
  content: Type.String({ description: 'Text, or an image as base64, data URI or https URL' }),
  policyId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
  contentType: Type.Optional(
    Type.Union([Type.Literal('text'), Type.Literal('image'), Type.Literal('video')]),
  ),
  language: Type.Optional(
    Type.String({ description: 'ISO 639-1 code of the 17 supported, or auto; default en' }),
  ),
  metadata: Type.Optional(Metadata),
  doNotStore: Type.Optional(
    Type.Boolean({
      description:
        'true: the decision is stored (and sent in events) without its content and the text of its highlights; ' +
        'the answer still carries them',
    }),
  ),
  requestId: Type.Optional(Type.String({ maxLength: 255, description: 'Idempotency key' })),
});

/** Content that is plainly not what its contentType says (a data URI or a base64 image scored as text). */
export const ContentWarnings = Type.Array(
  Type.Object({
    code: Type.Union([
      Type.Literal('CONTENT_LOOKS_LIKE_DATA_URI'),
      Type.Literal('CONTENT_LOOKS_LIKE_BASE64_MEDIA'),
    ]),
    message: Type.String(),
    field: Type.String(),
  }),
  {
    description:
      'Present when the content is plainly not what contentType says (a data URI or a base64 image scored as ' +
      'text): the result stands, but it judged the characters, not the media',
  },
);

export const CheckResult = Type.Object(
  {
    decisionId: Type.String(),
    safe: Type.Boolean(),
    flagged: Type.Boolean(),
    action: Action,
    categories: Type.Array(CategoryResult),
    provider: Type.String(),
    latency: Type.Number({ description: 'Server-side milliseconds' }),
    cost: Type.Number({ description: 'USD' }),
    policyId: Type.String(),
    policyVersion: Type.Integer(),
    contentType: Type.String(),
    language: Type.Union([Type.String(), Type.Null()]),
    modelVersion: Type.Union([Type.String(), Type.Null()]),
    timestamp: Type.String({ format: 'date-time' }),
    replayOf: Type.Optional(Type.String()),
    results: Type.Optional(Type.Array(Type.Unknown())),
    media: Type.Optional(MediaList),
    warnings: Type.Optional(ContentWarnings),
    bankMatch: Type.Optional(Type.Ref('BankMatch')),
    listMatches: Type.Optional(Type.Array(Type.Ref('ListMatch'))),
    ocr: Type.Optional(OcrResult),
    routing: Type.Optional(ProviderAttempts),
  },
  { $id: 'CheckResult' },
);

export const DryRunBody = Type.Object({
  policyId: Type.String(),
  mockScores: Type.Optional(Type.Record(Type.String(), Type.Number({ minimum: 0, maximum: 1 }))),
});

export const DryRunResult = Type.Object({
  dryRun: Type.Literal(true),
  policyId: Type.String(),
  policyVersion: Type.Integer(),
  safe: Type.Boolean(),
  flagged: Type.Boolean(),
  action: Action,
  categories: Type.Array(CategoryResult),
});

export const Decision = Type.Object(
  {
    decisionId: Type.String(),
    content: Type.String(),
    contentType: Type.String(),
    safe: Type.Boolean(),
    flagged: Type.Boolean(),
    action: Action,
    categories: Type.Array(CategoryResult),
    policyId: Type.String(),
    policyVersion: Type.Integer(),
    provider: Type.String(),
    modelVersion: Type.Union([Type.String(), Type.Null()]),
    latency: Type.Number(),
    cost: Type.Number(),
    language: Type.Union([Type.String(), Type.Null()]),
    metadata: Type.Union([Metadata, Type.Null()]),
    requestId: Type.Union([Type.String(), Type.Null()]),
    timestamp: Type.String({ format: 'date-time' }),
    replayOf: Type.Union([Type.String(), Type.Null()]),
    results: Type.Optional(Type.Array(Type.Unknown())),
    media: Type.Optional(MediaList),
    bankMatch: Type.Optional(Type.Ref('BankMatch')),
    listMatches: Type.Optional(Type.Array(Type.Ref('ListMatch'))),
    ocr: Type.Optional(OcrResult),
    routing: Type.Optional(ProviderAttempts),
    keyId: Type.Optional(
      Type.String({
        description:
          'The API key that made the decision (absent for decisions stored before keys were recorded)',
      }),
    ),
    ...HumanLayer,
  },
  { $id: 'Decision' },
);
