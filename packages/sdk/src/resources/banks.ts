import type { APIClient, RequestOptions } from '../core.ts';
import type {
  Bank,
  BankCreateParams,
  BankDeleted,
  BankImportResult,
  BankItem,
  BankItemCreateParams,
  BankItemDeleted,
  BankItemList,
  BankItemListParams,
  BankList,
} from '../types.ts';

/** Hash banks: known images matched by PDQ, SHA-256 or MD5 before any model runs. `bankId` is the ID or name. */
export class Banks {
  constructor(private readonly client: APIClient) {}

  create(params: BankCreateParams, options?: RequestOptions): Promise<Bank> {
    return this.client.call('post', '/v1/banks', { body: params }, options);
  }

  list(options?: RequestOptions): Promise<BankList> {
    return this.client.call('get', '/v1/banks', {}, options);
  }

  get(bankId: string, options?: RequestOptions): Promise<Bank> {
    return this.client.call('get', '/v1/banks/{bankId}', { path: { bankId } }, options);
  }

  delete(bankId: string, options?: RequestOptions): Promise<BankDeleted> {
    return this.client.call('delete', '/v1/banks/{bankId}', { path: { bankId } }, options);
  }

  /** Adds an `image` (base64, data URI or URL) or a `hash` (`hashType` pdq, sha256 or md5), with a `label`. */
  addItem(bankId: string, params: BankItemCreateParams, options?: RequestOptions): Promise<BankItem> {
    return this.client.call('post', '/v1/banks/{bankId}/items', { path: { bankId }, body: params }, options);
  }

  listItems(
    bankId: string,
    params: BankItemListParams = {},
    options?: RequestOptions,
  ): Promise<BankItemList> {
    return this.client.call('get', '/v1/banks/{bankId}/items', { path: { bankId }, query: params }, options);
  }

  deleteItem(bankId: string, itemId: string, options?: RequestOptions): Promise<BankItemDeleted> {
    return this.client.call(
      'delete',
      '/v1/banks/{bankId}/items/{itemId}',
      { path: { bankId, itemId } },
      options,
    );
  }

  /** Imports a CSV hash list (ThreatExchange/HMA export, or one hex hash per line). */
  import(bankId: string, csv: string, options?: RequestOptions): Promise<BankImportResult> {
    return this.client.call(
      'post',
      '/v1/banks/{bankId}/import',
      { path: { bankId }, body: { csv } },
      options,
    );
  }
}
