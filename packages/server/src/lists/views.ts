import type { ListEntryRecord, ListRecord } from '../storage/repositories/lists.ts';

export function listView(list: ListRecord) {
  return {
    id: list.id,
    name: list.name,
    kind: list.kind,
    ...(list.action && { action: list.action }),
    ...(list.caps && { caps: list.caps }),
    description: list.description,
    entryCount: list.entryCount,
    regexCount: list.regexCount,
    version: list.version,
    createdAt: list.createdAt,
    updatedAt: list.updatedAt,
  };
}

export function listEntryView(entry: ListEntryRecord) {
  return {
    id: entry.id,
    type: entry.type,
    value: entry.value,
    normalised: entry.type === 'term' ? entry.normalised : null,
    createdAt: entry.createdAt,
  };
}
