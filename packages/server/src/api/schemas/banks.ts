import { Type } from 'typebox';
import { Action } from './common.ts';

const HashType = Type.Union([Type.Literal('pdq'), Type.Literal('sha256'), Type.Literal('md5')]);

export const BankMatch = Type.Object(
  {
    bank: Type.String({ description: 'Name of the matching bank' }),
    bankId: Type.String(),
    itemId: Type.String({ description: 'The bank item that matched' }),
    label: Type.Union([Type.String(), Type.Null()]),
    matchedOn: HashType,
    distance: Type.Integer({
      description: 'PDQ Hamming distance in bits (0 for an exact SHA-256/MD5 match)',
    }),
    maxDistance: Type.Integer({ description: "The policy's threshold for this bank" }),
    action: Action,
    contentRef: Type.String({ description: 'The image that matched: its URL or sha256:<hex>' }),
  },
  {
    $id: 'BankMatch',
    description:
      'Extension field: the policy bank that decided this content before any model ran (no categories evaluated)',
  },
);

export const Bank = Type.Object(
  {
    id: Type.String(),
    name: Type.String({
      description: 'What policies name in `banks: [{ bank: <name>, action, maxDistance }]`',
    }),
    description: Type.Union([Type.String(), Type.Null()]),
    itemCount: Type.Integer(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Bank' },
);

export const BankItem = Type.Object(
  {
    id: Type.String(),
    bankId: Type.String(),
    label: Type.Union([Type.String(), Type.Null()]),
    source: Type.Union([Type.Literal('image'), Type.Literal('hash'), Type.Literal('import')]),
    pdq: Type.Union([Type.String(), Type.Null()], {
      description:
        'PDQ hash, 64 hex digits (null for an exact-only item or an image of PDQ quality under 50)',
    }),
    pdqQuality: Type.Union([Type.Integer(), Type.Null()], {
      description: 'PDQ quality 0–100 of a banked image',
    }),
    sha256: Type.Union([Type.String(), Type.Null()]),
    md5: Type.Union([Type.String(), Type.Null()]),
    contentRef: Type.Optional(Type.String({ description: 'The banked image: its URL or sha256:<hex>' })),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'BankItem' },
);

export const BankCreateBody = Type.Object({
  name: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
  description: Type.Optional(Type.String({ maxLength: 500 })),
});

export const BankItemBody = Type.Object({
  image: Type.Optional(
    Type.String({ description: 'The image to bank: base64, data URI or https URL (one of image and hash)' }),
  ),
  hash: Type.Optional(Type.String({ description: 'A hash in hex (one of image and hash)' })),
  hashType: Type.Optional(HashType),
  label: Type.Optional(Type.String({ maxLength: 200 })),
});

export const BankImportResult = Type.Object({
  bank: Type.Ref('Bank'),
  received: Type.Integer({ description: 'Hashes in the file' }),
  added: Type.Integer(),
  duplicates: Type.Integer({ description: 'Hashes the bank already held (or repeated in the file)' }),
});
