import type { APIClient, RequestOptions } from '../core.ts';
import type {
  ListChanges,
  ListCreated,
  ListCreateParams,
  ListDeleted,
  ListEntriesRemoved,
  ListEntriesRemoveParams,
  ListEntryInput,
  ListGetParams,
  ListList,
  ListWithEntries,
} from '../types.ts';

/**
 * Match lists: block and allow lists of terms, phrases and regexes, matched in text after the text model's evasion
 * normalisation and named by policies (`lists:`). `listId` is the ID or the name.
 */
export class Lists {
  constructor(private readonly client: APIClient) {}

  /** Creates a list (`kind` block with an `action`, or allow with `caps`), optionally with up to 10,000 entries. */
  create(params: ListCreateParams, options?: RequestOptions): Promise<ListCreated> {
    return this.client.call('post', '/v1/lists', { body: params }, options);
  }

  list(options?: RequestOptions): Promise<ListList> {
    return this.client.call('get', '/v1/lists', {}, options);
  }

  /** The list and one page of its entries, newest first (`limit` up to 1000, `offset`). */
  get(listId: string, params: ListGetParams = {}, options?: RequestOptions): Promise<ListWithEntries> {
    return this.client.call('get', '/v1/lists/{listId}', { path: { listId }, query: params }, options);
  }

  /** Deletes a list; refused (409 LIST_IN_USE) while a policy names it. */
  delete(listId: string, options?: RequestOptions): Promise<ListDeleted> {
    return this.client.call('delete', '/v1/lists/{listId}', { path: { listId } }, options);
  }

  /** Adds up to 10,000 entries: terms or phrases (strings), `{ term }` or `{ regex }`. */
  add(listId: string, entries: ListEntryInput[], options?: RequestOptions): Promise<ListChanges> {
    return this.client.call(
      'post',
      '/v1/lists/{listId}/entries',
      { path: { listId }, body: { entries } },
      options,
    );
  }

  /** Removes entries given as written (normalised like added ones) or by `ids`. */
  remove(
    listId: string,
    params: ListEntriesRemoveParams,
    options?: RequestOptions,
  ): Promise<ListEntriesRemoved> {
    return this.client.call(
      'delete',
      '/v1/lists/{listId}/entries',
      { path: { listId }, body: params },
      options,
    );
  }

  /** Imports text, one entry a line (`regex:` and a pattern for a regex; `#` comments), up to the list's bound. */
  import(listId: string, text: string, options?: RequestOptions): Promise<ListChanges> {
    return this.client.call(
      'post',
      '/v1/lists/{listId}/import',
      { path: { listId }, body: { text } },
      options,
    );
  }
}
