import type { AuditSink } from '../audit/types.ts';
import { AppError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { type Principal, requireScope } from '../domain/principal.ts';
import {
  describeImage,
  fetchImage,
  type ImageFetchOptions,
  imageRef,
  MAX_IMAGE_PIXELS,
  parseImageInput,
} from '../media/image.ts';
import type { BankItemRecord, BankRecord, BankRepository } from '../storage/repositories/banks.ts';
import { parseHashCsv } from './csv-import.ts';
import { hashImage } from './image-hashes.ts';
import {
  BANK_NAME_PATTERN,
  MAX_BANKS_PER_ACCOUNT,
  MAX_DESCRIPTION_LENGTH,
  MAX_ITEMS_PER_BANK,
  MAX_LABEL_LENGTH,
} from './limits.ts';
import { HASH_TYPES, type HashType } from './types.ts';

const HEX_LENGTH: Record<HashType, number> = { pdq: 64, sha256: 64, md5: 32 };

export function bankView(bank: BankRecord) {
  return {
    id: bank.id,
    name: bank.name,
    description: bank.description,
    itemCount: bank.itemCount,
    createdAt: bank.createdAt,
    updatedAt: bank.updatedAt,
  };
}

export function bankItemView(item: BankItemRecord) {
  return {
    id: item.id,
    bankId: item.bankId,
    label: item.label,
    source: item.source,
    pdq: item.pdq,
    pdqQuality: item.pdqQuality,
    sha256: item.sha256,
    md5: item.md5,
    ...(item.mediaRef && { contentRef: item.mediaRef }),
    createdAt: item.createdAt,
  };
}

function optionalString(value: unknown, field: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > max) {
    throw new AppError('INVALID_PARAMETER', `${field} must be a string of at most ${max} characters`, {
      field,
    });
  }
  return value.trim() === '' ? null : value.trim();
}

/** Hash banks: named lists of known images per account (issue 20). Every operation is the caller's account's. */
export class BankService {
  constructor(
    private readonly repo: BankRepository,
    private readonly fetchOptions: ImageFetchOptions,
    /** Bank creations and deletions, and item additions, imports and removals, are audit entries. */
    private readonly audit: AuditSink,
  ) {}

  private audited(
    principal: Principal,
    action: string,
    bank: BankRecord,
    change: { before?: unknown; after?: unknown },
  ) {
    return this.audit.record(
      principal,
      action,
      { type: 'bank', id: bank.id, accountId: bank.accountId },
      change,
    );
  }

  async create(principal: Principal, body: { name?: unknown; description?: unknown }): Promise<BankRecord> {
    requireScope(principal, 'banks:write');
    if (body.name === undefined || body.name === null) {
      throw new AppError('MISSING_REQUIRED_FIELD', 'name is required', { field: 'name' });
    }
    if (typeof body.name !== 'string' || !BANK_NAME_PATTERN.test(body.name)) {
      throw new AppError(
        'INVALID_PARAMETER',
        'name must be 1–64 characters of A-Z, a-z, 0-9, _ and - (not starting with bnk_)',
        { field: 'name', pattern: BANK_NAME_PATTERN.source },
      );
    }
    const description = optionalString(body.description, 'description', MAX_DESCRIPTION_LENGTH);
    if ((await this.repo.list(principal.accountId)).length >= MAX_BANKS_PER_ACCOUNT) {
      throw new AppError('INVALID_PARAMETER', `An account has at most ${MAX_BANKS_PER_ACCOUNT} banks`, {
        reason: 'too_many_banks',
        max: MAX_BANKS_PER_ACCOUNT,
      });
    }
    const now = new Date().toISOString();
    const bank: BankRecord = {
      id: newId('bnk'),
      accountId: principal.accountId,
      name: body.name,
      description,
      version: 0,
      itemCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    if (!(await this.repo.insert(bank))) {
      throw new AppError('DUPLICATE_BANK', `A bank named "${body.name}" already exists`, { name: body.name });
    }
    await this.audited(principal, 'bank.created', bank, { after: bankView(bank) });
    return bank;
  }

  async list(principal: Principal): Promise<BankRecord[]> {
    requireScope(principal, 'banks:read');
    return this.repo.list(principal.accountId);
  }

  async get(principal: Principal, bankId: string): Promise<BankRecord> {
    requireScope(principal, 'banks:read');
    return this.find(principal, bankId);
  }

  async delete(principal: Principal, bankId: string): Promise<BankRecord> {
    requireScope(principal, 'banks:write');
    const bank = await this.find(principal, bankId);
    await this.repo.delete(principal.accountId, bank.id);
    await this.audited(principal, 'bank.deleted', bank, { before: bankView(bank) });
    return bank;
  }

  /**
   * Adds one item: an `image` (base64, data URI or https URL, fetched through the SSRF-safe fetcher) is hashed
   * with PDQ, SHA-256 and MD5; or a `hash` of `hashType` (default pdq). 409 DUPLICATE_BANK_ITEM when the bank
   * already holds the same image or hash.
   */
  async addItem(
    principal: Principal,
    bankId: string,
    body: { image?: unknown; hash?: unknown; hashType?: unknown; label?: unknown },
  ): Promise<BankItemRecord> {
    requireScope(principal, 'banks:write');
    const bank = await this.find(principal, bankId);
    const label = optionalString(body.label, 'label', MAX_LABEL_LENGTH);
    const hasImage = body.image !== undefined && body.image !== null;
    const hasHash = body.hash !== undefined && body.hash !== null;
    if (hasImage === hasHash) {
      throw new AppError(
        hasImage ? 'INVALID_PARAMETER' : 'MISSING_REQUIRED_FIELD',
        'Give exactly one of image (base64, data URI or URL) and hash',
        { field: 'image' },
      );
    }
    const now = new Date().toISOString();
    const base = { id: newId('bki'), bankId: bank.id, accountId: principal.accountId, label, createdAt: now };
    let item: BankItemRecord;
    if (hasImage) {
      const input = parseImageInput(body.image, 'image', { allowHttp: this.fetchOptions.allowHttp });
      const bytes =
        input.kind === 'url' ? await fetchImage(input.url, 'image', this.fetchOptions) : input.bytes;
      const ref = imageRef(input);
      const notImage = input.kind === 'url' ? 'INVALID_IMAGE_URL' : 'INVALID_CONTENT';
      await describeImage(bytes, ref, 'image', notImage);
      const hashes = await hashImage(bytes, MAX_IMAGE_PIXELS);
      item = {
        ...base,
        fingerprint: `sha256:${hashes.sha256}`,
        pdq: hashes.pdq,
        pdqQuality: hashes.quality,
        sha256: hashes.sha256,
        md5: hashes.md5,
        source: 'image',
        mediaRef: ref,
      };
    } else {
      const hashType = body.hashType ?? 'pdq';
      if (typeof hashType !== 'string' || !(HASH_TYPES as readonly string[]).includes(hashType)) {
        throw new AppError('INVALID_PARAMETER', 'hashType must be pdq, sha256 or md5', {
          field: 'hashType',
          allowed: HASH_TYPES,
        });
      }
      const type = hashType as HashType;
      const hash = typeof body.hash === 'string' ? body.hash.trim().toLowerCase() : '';
      if (hash.length !== HEX_LENGTH[type] || !/^[0-9a-f]+$/.test(hash)) {
        throw new AppError(
          'INVALID_PARAMETER',
          `hash must be a ${type} hash: ${HEX_LENGTH[type]} hex digits`,
          {
            field: 'hash',
          },
        );
      }
      item = { ...base, ...hashItem(type, hash), source: 'hash', mediaRef: null };
    }
    this.checkCapacity(bank, 1);
    const [inserted] = await this.repo.addItems(bank.id, [item], now);
    if (!inserted) {
      const existing = await this.repo.findItemByFingerprint(bank.id, item.fingerprint);
      throw new AppError('DUPLICATE_BANK_ITEM', 'The bank already holds this image or hash', {
        itemId: existing?.id ?? null,
      });
    }
    await this.audited(principal, 'bank.item_added', bank, { after: bankItemView(inserted) });
    return inserted;
  }

  /** Imports a CSV hash list (see parseHashCsv); hashes the bank already holds are counted, not added again. */
  async importCsv(
    principal: Principal,
    bankId: string,
    csv: unknown,
  ): Promise<{ bank: BankRecord; received: number; added: number; duplicates: number }> {
    requireScope(principal, 'banks:write');
    const bank = await this.find(principal, bankId);
    if (typeof csv !== 'string' || csv.trim() === '') {
      throw new AppError(
        'MISSING_REQUIRED_FIELD',
        'The body must be a CSV hash list (Content-Type: text/csv)',
        {
          field: 'body',
        },
      );
    }
    const rows = parseHashCsv(csv);
    this.checkCapacity(bank, rows.length);
    const now = new Date().toISOString();
    const items: BankItemRecord[] = rows.map((row) => ({
      id: newId('bki'),
      bankId: bank.id,
      accountId: principal.accountId,
      label: row.label,
      createdAt: now,
      ...hashItem(row.hashType, row.hash),
      source: 'import',
      mediaRef: null,
    }));
    const added = await this.repo.addItems(bank.id, items, now);
    // the items themselves are in the bank; the entry records the import's size, not 100k hashes
    await this.audited(principal, 'bank.items_imported', bank, {
      after: { received: rows.length, added: added.length, itemIds: added.slice(0, 100).map((i) => i.id) },
    });
    return {
      bank: (await this.repo.find(principal.accountId, bank.id)) ?? bank,
      received: rows.length,
      added: added.length,
      duplicates: rows.length - added.length,
    };
  }

  async listItems(principal: Principal, bankId: string, page: { limit: number; offset: number }) {
    requireScope(principal, 'banks:read');
    const bank = await this.find(principal, bankId);
    const items = await this.repo.listItems(bank.id, page.limit + 1, page.offset);
    return { items: items.slice(0, page.limit), hasMore: items.length > page.limit };
  }

  async deleteItem(principal: Principal, bankId: string, itemId: string): Promise<void> {
    requireScope(principal, 'banks:write');
    const bank = await this.find(principal, bankId);
    if (!(await this.repo.deleteItem(bank.id, itemId, new Date().toISOString()))) {
      throw new AppError('BANK_ITEM_NOT_FOUND', `Bank "${bank.name}" has no item "${itemId}"`, { itemId });
    }
    await this.audited(principal, 'bank.item_deleted', bank, { before: { itemId } });
  }

  /** The names among `names` that are banks of the account (policies may name only these). */
  async existingNames(accountId: string, names: string[]): Promise<Set<string>> {
    return new Set((await this.repo.versions(accountId, names)).map((b) => b.name));
  }

  /** A bank of the caller's account by ID or name; another account's bank is indistinguishable from none. */
  private async find(principal: Principal, bankId: string): Promise<BankRecord> {
    const bank = bankId.length <= 100 ? await this.repo.find(principal.accountId, bankId) : null;
    if (!bank)
      throw new AppError('BANK_NOT_FOUND', `Bank "${bankId.slice(0, 100)}" does not exist`, {
        bankId: bankId.slice(0, 100),
      });
    return bank;
  }

  private checkCapacity(bank: BankRecord, adding: number): void {
    if (bank.itemCount + adding > MAX_ITEMS_PER_BANK) {
      throw new AppError('INVALID_PARAMETER', `A bank holds at most ${MAX_ITEMS_PER_BANK} items`, {
        reason: 'bank_full',
        itemCount: bank.itemCount,
        max: MAX_ITEMS_PER_BANK,
      });
    }
  }
}

function hashItem(type: HashType, hash: string) {
  return {
    fingerprint: `${type}:${hash}`,
    pdq: type === 'pdq' ? hash : null,
    pdqQuality: null,
    sha256: type === 'sha256' ? hash : null,
    md5: type === 'md5' ? hash : null,
  };
}
