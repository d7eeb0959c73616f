import { Type } from 'typebox';
import { Action } from './common.ts';

export const ListCaps = Type.Record(
  Type.String(),
  Type.Union([Action, Type.Number({ minimum: 0, maximum: 1 })]),
  {
    description:
      "An allow list's caps: category → the most severe action it may take (a string) or its highest score (a number)",
  },
);

const EntryType = Type.Union([Type.Literal('term'), Type.Literal('regex')]);

/** An entry as given: a term or phrase, or `{ term }`, or `{ regex }` (RE2 syntax). */
export const ListEntryInput = Type.Union([
  Type.String({ description: 'A term or phrase (at most 200 characters, 8 words)' }),
  Type.Object({ term: Type.String() }, { additionalProperties: false }),
  Type.Object(
    {
      regex: Type.String({
        description: 'RE2 syntax, at most 200 characters, matched on the normalised text',
      }),
    },
    { additionalProperties: false },
  ),
]);

export const ListMatch = Type.Object(
  {
    list: Type.String({ description: 'Name of the list' }),
    listId: Type.String(),
    kind: Type.Union([Type.Literal('block'), Type.Literal('allow')]),
    entryId: Type.String({ description: 'The list entry that matched' }),
    entry: Type.String({ description: 'The entry as written in the list' }),
    entryType: EntryType,
    start: Type.Integer({ description: 'UTF-16 offset of the matched span in the text' }),
    end: Type.Integer(),
    action: Type.Optional(Action),
    caps: Type.Optional(ListCaps),
  },
  {
    $id: 'ListMatch',
    description:
      'Extension field: a match-list entry found in the text (after the text model’s evasion normalisation)',
  },
);

export const List = Type.Object(
  {
    id: Type.String(),
    name: Type.String({ description: 'What policies name in `lists: [{ list: <name> }]`' }),
    kind: Type.Union([Type.Literal('block'), Type.Literal('allow')]),
    action: Type.Optional(Action),
    caps: Type.Optional(ListCaps),
    description: Type.Union([Type.String(), Type.Null()]),
    entryCount: Type.Integer(),
    regexCount: Type.Integer(),
    version: Type.Integer({ description: 'Changes with every entry change' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'List' },
);

export const ListEntry = Type.Object(
  {
    id: Type.String(),
    type: EntryType,
    value: Type.String({ description: 'As written' }),
    normalised: Type.Union([Type.String(), Type.Null()], {
      description: 'What a term matches: its normalised words (null for a regex)',
    }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'ListEntry' },
);

export const ListCreateBody = Type.Object({
  name: Type.String(),
  kind: Type.Union([Type.Literal('block'), Type.Literal('allow')]),
  action: Type.Optional(Action),
  caps: Type.Optional(ListCaps),
  description: Type.Optional(Type.String()),
  entries: Type.Optional(Type.Array(ListEntryInput, { description: 'At most 10,000 (import takes more)' })),
});

export const ListChanges = Type.Object({
  list: Type.Ref('List'),
  received: Type.Integer(),
  added: Type.Integer(),
  duplicates: Type.Integer({ description: 'Entries the list already held (after normalisation)' }),
});
