import { Type } from 'typebox';
import { Action, CategoryResult } from './common.ts';
import { OcrResult } from './media.ts';

const FrameInterval = Type.Number({
  minimum: 0.1,
  description: 'Seconds between sampled frames; default 1, minimum 0.1',
});
const MaxFrames = Type.Integer({
  minimum: 1,
  maximum: 600,
  description: 'Frames sampled at most; default 60, max 600',
});
const MaxDuration = Type.Number({
  minimum: 1,
  maximum: 3600,
  description:
    'Longest video accepted, seconds; default 300, max 3600. A longer video → 422 CONTENT_TOO_LARGE with ' +
    '`details.reason: "duration"`, `details.durationSeconds` and `details.maxDurationSeconds`. Videos too costly to ' +
    'decode are refused the same way: frames over 8192 pixels a side or 8192×4320 (`"resolution"`), over 240 fps ' +
    '(`"frame_rate"`), or over 8K at 30 fps in pixels per second (`"pixel_rate"`).',
});
const WebhookUrl = Type.String({
  description:
    'Optional https URL that receives moderation.completed / moderation.failed, signed with the account signing secret',
});

const DO_NOT_STORE =
  'true: the result is stored (and sent in events) without the video URL (or upload hash) and the text read in ' +
  'its frames, from the moment the video is accepted, and no evidence frames are kept (results carry no ' +
  '`evidence`)';
const DoNotStore = Type.Boolean({ description: DO_NOT_STORE });

export const VideoCheckBody = Type.Object({
  videoUrl: Type.String({
    description:
      'https URL of the video (≤ 100 MB), fetched by the server: public addresses only, ≤ 3 redirects. ' +
      'Not accessible → 422 INVALID_VIDEO_URL (`details.reason`); over 100 MB → 422 CONTENT_TOO_LARGE; ' +
      'not a decodable video → 422 INVALID_CONTENT.',
  }),
  policyId: Type.String(),
  webhookUrl: Type.Optional(WebhookUrl),
  extractionStrategy: Type.Optional(
    Type.Object({ frameInterval: Type.Optional(FrameInterval), maxFrames: Type.Optional(MaxFrames) }),
  ),
  maxDurationSeconds: Type.Optional(MaxDuration),
  doNotStore: Type.Optional(DoNotStore),
  requestId: Type.Optional(Type.String({ maxLength: 255, description: 'Idempotency key' })),
});

export const VideoUploadBody = Type.Object(
  {
    video: Type.String({
      format: 'binary',
      description:
        'The video file, ≤ 100 MB (over → 422 CONTENT_TOO_LARGE); streamed to disk, never buffered',
    }),
    policyId: Type.String(),
    webhookUrl: Type.Optional(WebhookUrl),
    maxDurationSeconds: Type.Optional(MaxDuration),
    frameInterval: Type.Optional(FrameInterval),
    maxFrames: Type.Optional(MaxFrames),
    doNotStore: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], { description: DO_NOT_STORE }),
    ),
  },
  { description: 'multipart/form-data. Send the text fields before the file so they are checked first.' },
);

export const VideoAccepted = Type.Object({
  decisionId: Type.String({
    description: 'The ID of the video decision (also in GET /v1/decisions when done)',
  }),
  status: Type.Literal('processing'),
  estimatedTime: Type.Number({ description: 'Seconds until the result is expected' }),
  estimatedFrames: Type.Integer({ description: 'Frames that will be judged; each counts one quota unit' }),
  estimatedCost: Type.Number({ description: 'USD (0 with the bundled model)' }),
  durationSeconds: Type.Number({ description: 'Duration of the video as probed' }),
});

const Failure = Type.Object({ code: Type.String(), message: Type.String() });

export const VideoStatus = Type.Object({
  decisionId: Type.String(),
  status: Type.Union([Type.Literal('processing'), Type.Literal('completed'), Type.Literal('failed')]),
  progress: Type.Object({
    framesProcessed: Type.Integer(),
    framesTotal: Type.Integer(),
    percentComplete: Type.Number({ minimum: 0, maximum: 100 }),
  }),
  estimatedCompletion: Type.String({
    format: 'date-time',
    description: 'From the frame rate measured so far; the completion time once completed',
  }),
  createdAt: Type.String({ format: 'date-time' }),
  completedAt: Type.Optional(Type.String({ format: 'date-time' })),
  error: Type.Optional(Failure),
});

export const FrameResult = Type.Object({
  frameNumber: Type.Integer({ description: '0-based among the sampled frames' }),
  timestamp: Type.Number({ description: 'Position in the video, seconds' }),
  safe: Type.Boolean(),
  flagged: Type.Boolean(),
  action: Action,
  categories: Type.Array(
    Type.Object({ category: Type.String(), score: Type.Number(), triggered: Type.Boolean() }),
  ),
  evidence: Type.Optional(
    Type.Object(
      {
        url: Type.String({ description: 'JPEG of the frame; no API key needed; 404 after expiresAt' }),
        expiresAt: Type.String({ format: 'date-time' }),
      },
      { description: 'For frames that triggered' },
    ),
  ),
  bankMatch: Type.Optional(Type.Ref('BankMatch')),
  ocr: Type.Optional(OcrResult),
});

/** 200: the final result when completed, or the status body with `status: "failed"` and `error`. */
export const VideoResult = Type.Object({
  decisionId: Type.String(),
  status: Type.Union([Type.Literal('completed'), Type.Literal('failed'), Type.Literal('processing')]),
  safe: Type.Optional(Type.Boolean()),
  flagged: Type.Optional(Type.Boolean()),
  action: Type.Optional(Action),
  categories: Type.Optional(
    Type.Array(CategoryResult, { description: 'Per policy category, the highest score of any frame' }),
  ),
  results: Type.Optional(Type.Array(FrameResult)),
  totalLatency: Type.Optional(Type.Number({ description: 'Milliseconds from submission to completion' })),
  totalCost: Type.Optional(Type.Number({ description: 'USD' })),
  bankMatch: Type.Optional(Type.Ref('BankMatch')),
  framesProcessed: Type.Optional(Type.Integer()),
  framesPlanned: Type.Optional(Type.Integer({ description: 'Frames the video was to give by its duration' })),
  partial: Type.Optional(
    Type.Boolean({
      description: 'The file broke off: fewer frames decoded than planned, and the result judges only those',
    }),
  ),
  policyId: Type.Optional(Type.String()),
  policyVersion: Type.Optional(Type.Integer()),
  provider: Type.Optional(Type.String()),
  contentType: Type.Optional(Type.Literal('video')),
  content: Type.Optional(Type.String({ description: 'The video URL, or upload:sha256:<hex>' })),
  timestamp: Type.Optional(Type.String({ format: 'date-time' })),
  progress: Type.Optional(VideoStatus.properties.progress),
  estimatedCompletion: Type.Optional(Type.String({ format: 'date-time' })),
  createdAt: Type.Optional(Type.String({ format: 'date-time' })),
  completedAt: Type.Optional(Type.String({ format: 'date-time' })),
  error: Type.Optional(Failure),
});
