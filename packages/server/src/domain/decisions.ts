import { randomBytes } from 'node:crypto';
import { withoutContent } from '../retention/redact.ts';
import { decisionPages } from '../search/export.ts';
import type { Db } from '../storage/database.ts';
import {
  type DecisionRecord,
  DecisionRepository,
  decisionInserts,
} from '../storage/repositories/decisions.ts';
import type { DecisionFilter } from './decision-filters.ts';
import { AppError } from './errors.ts';
import { type Principal, requireScope } from './principal.ts';

/**
 * Something that must be written in the same transaction as a decision (events, usage): the outbox hook. On SQLite,
 * `rowids[i]` is the rowid the insert gave `decisions[i]` (the search index keys its entries by it; looking it up
 * by ID again cost as much as the index entry itself); on PostgreSQL it is empty.
 */
export type DecisionSideWrite = (
  trx: Db,
  decisions: DecisionRecord[],
  rowids: readonly bigint[],
) => Promise<void>;

interface PendingSave {
  decisions: DecisionRecord[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Stores decisions durably; side writes registered by other modules (events, usage) join the same transaction.
 *
 * Group commit: saves requested while a transaction is being written are gathered and written together in the
 * next one, so concurrent requests share one commit. Each caller is answered only after its own rows are committed,
 * so an acknowledged decision is always durable.
 */
export class DecisionStore {
  private readonly sideWrites: DecisionSideWrite[] = [];
  private readonly inserts;
  private pending: PendingSave[] = [];
  private scheduled = false;
  private inFlight = 0;
  /**
   * Commit groups written at once: one on SQLite (one connection), several on PostgreSQL, where a commit waits for
   * the server's fsync and the next group's statements can run meanwhile.
   */
  private readonly maxInFlight: number;
  readonly repository: DecisionRepository;

  constructor(
    private readonly db: Db,
    private readonly engine: 'sqlite' | 'postgres' = 'sqlite',
  ) {
    this.repository = new DecisionRepository(db, engine);
    this.inserts = decisionInserts(db, engine, TEMPLATE);
    this.maxInFlight = engine === 'postgres' ? 3 : 1;
  }

  private readonly committedListeners: Array<(decisions: DecisionRecord[]) => void> = [];

  addSideWrite(write: DecisionSideWrite): void {
    this.sideWrites.push(write);
  }

  /** Called with decisions once they are committed (e.g. metrics); must not throw. */
  onCommitted(listener: (decisions: DecisionRecord[]) => void): void {
    this.committedListeners.push(listener);
  }

  private committed(decisions: DecisionRecord[]): void {
    for (const listener of this.committedListeners) listener(decisions);
  }

  save(decisions: DecisionRecord[]): Promise<void> {
    if (decisions.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.pending.push({ decisions, resolve, reject });
      this.schedule();
    });
  }

  /** Starts a group at the end of this event-loop turn, so requests that arrived together commit together. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.writeGroup();
    });
  }

  private async writeGroup(): Promise<void> {
    if (this.inFlight >= this.maxInFlight || this.pending.length === 0) return;
    const group = this.pending;
    this.pending = [];
    this.inFlight++;
    try {
      const decisions = group.flatMap((p) => p.decisions);
      await this.write(decisions);
      this.committed(decisions);
      for (const p of group) p.resolve();
    } catch (error) {
      if (group.length === 1) group[0]!.reject(error);
      // One bad save must not fail its neighbours: write each alone.
      else {
        for (const p of group) {
          await this.write(p.decisions).then(() => {
            this.committed(p.decisions);
            p.resolve();
          }, p.reject);
        }
      }
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }

  private async write(given: DecisionRecord[]): Promise<void> {
    // a doNotStore decision is stored, and announced, without its content; the caller's answer keeps it
    const decisions = given.some((d) => d.doNotStore)
      ? given.map((d) => (d.doNotStore ? withoutContent(d) : d))
      : given;
    await this.db.transaction().execute(async (trx) => {
      const rowids: bigint[] = [];
      for (const query of this.inserts(decisions)) {
        const result = await trx.executeQuery(query);
        // SQLite inserts one decision per statement (decisionInserts), so its insert IDs line up with `decisions`
        if (this.engine === 'sqlite' && result.insertId !== undefined) rowids.push(result.insertId);
      }
      const aligned = rowids.length === decisions.length ? rowids : [];
      for (const write of this.sideWrites) await write(trx, decisions, aligned);
    });
  }
}

/** A well-formed record used only to compile the insert statement once. */
const TEMPLATE: DecisionRecord = {
  decisionId: '',
  accountId: '',
  content: '',
  contentType: 'text',
  safe: true,
  flagged: false,
  action: 'allow',
  categories: [],
  rawScores: {},
  evaluated: [],
  policyId: '',
  policyVersion: 0,
  provider: '',
  modelVersion: null,
  latency: 0,
  cost: 0,
  language: null,
  metadata: null,
  requestId: null,
  replayOf: null,
  request: {},
  results: null,
  timestamp: '',
  media: null,
  replayData: null,
};

/** The check result of interface §2.1, with the extension fields we add. */
export function checkResultView(d: DecisionRecord) {
  return {
    decisionId: d.decisionId,
    safe: d.safe,
    flagged: d.flagged,
    action: d.action,
    categories: d.categories.map(({ action: _action, ...category }) => category),
    provider: d.provider,
    latency: d.latency,
    cost: d.cost,
    policyId: d.policyId,
    policyVersion: d.policyVersion,
    contentType: d.contentType,
    language: d.language,
    modelVersion: d.modelVersion,
    timestamp: d.timestamp,
    ...(d.replayOf !== null && { replayOf: d.replayOf }),
    ...(d.results !== null && { results: d.results }),
    ...(d.media && d.media.length > 0 && { media: d.media }),
    ...(d.bankMatch && { bankMatch: d.bankMatch }),
    ...(d.ocr && { ocr: d.ocr }),
    ...(d.replayData?.routing && { routing: d.replayData.routing }),
    ...(d.replayData?.listMatches && { listMatches: d.replayData.listMatches }),
  };
}

/** The stored decision record of decisions §4. */
export function decisionView(d: DecisionRecord) {
  return {
    decisionId: d.decisionId,
    content: d.content,
    contentType: d.contentType,
    safe: d.safe,
    flagged: d.flagged,
    action: d.action,
    categories: d.categories.map(({ action: _action, ...category }) => category),
    policyId: d.policyId,
    policyVersion: d.policyVersion,
    provider: d.provider,
    modelVersion: d.modelVersion,
    latency: d.latency,
    cost: d.cost,
    language: d.language,
    metadata: d.metadata,
    requestId: d.requestId,
    timestamp: d.timestamp,
    replayOf: d.replayOf,
    ...(d.results !== null && { results: d.results }),
    ...(d.media && d.media.length > 0 && { media: d.media }),
    ...(d.bankMatch && { bankMatch: d.bankMatch }),
    ...(d.ocr && { ocr: d.ocr }),
    ...(d.replayData?.routing && { routing: d.replayData.routing }),
    ...(d.replayData?.listMatches && { listMatches: d.replayData.listMatches }),
    ...(d.keyId && { keyId: d.keyId }),
  };
}

/** Renders a shell-safe single-quoted argument: embedded single quotes become '\''. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

const INLINE_IMAGE = /^sha256:[0-9a-f]{64}$/;

/** The environment variable naming the file of inline image `index` of `count`. */
const imageVariable = (index: number, count: number) =>
  count === 1 ? 'VERDICT_IMAGE_FILE' : `VERDICT_IMAGE_FILE_${index + 1}`;

/**
 * A shell test that stops the command, with a message on stderr and a non-zero status, unless `variable` names a
 * readable file: without it the command would send an empty image and fail (or worse, succeed) obscurely. It uses
 * `false`, not `exit`, so that pasting the command into an interactive shell does not close it.
 */
const requireFile = (variable: string, what: string) =>
  `[ -r "$${variable}" ] || { echo ${shellQuote(`Set ${variable} to the ${what} (see GET /v1/decisions/{id}/curl)`)} >&2; false; } &&`;

/**
 * The JSON body, shell-quoted, with every inline image reference (an image check's `content`, a multi-modal
 * check's `images[i]`) replaced by the base64 of the file its environment variable names; and the variables the
 * command needs.
 */
function shellBody(body: Record<string, unknown>): { data: string; variables: string[] } {
  const refs: string[] = [];
  // a marker no other text of the body can hold by chance
  const nonce = randomBytes(8).toString('hex');
  const mark = (value: unknown) => {
    if (typeof value !== 'string' || !INLINE_IMAGE.test(value)) return value;
    refs.push(value);
    return `\u0000${nonce}:${refs.length - 1}\u0000`;
  };
  const marked = { ...body };
  if (body.contentType === 'image') marked.content = mark(body.content);
  if (Array.isArray(body.images)) marked.images = body.images.map(mark);
  const json = JSON.stringify(marked);
  if (refs.length === 0) return { data: shellQuote(json), variables: [] };
  // JSON.stringify writes the marker's NUL characters as \u0000
  const data = json
    .split(new RegExp(`\\\\u0000${nonce}:(\\d+)\\\\u0000`))
    .map((part, i) => {
      if (i % 2 === 0) return shellQuote(part);
      return `"$(base64 < "$${imageVariable(Number(part), refs.length)}" | tr -d '\\n')"`;
    })
    .join('');
  return { data, variables: refs.map((_, i) => imageVariable(i, refs.length)) };
}

/** `-F` arguments of a video upload: the file from $VERDICT_VIDEO_FILE, then the form's other fields. */
function uploadForm(body: Record<string, unknown>): string[] {
  const fields = Object.entries(body).filter(([name, value]) => name !== 'video' && value !== undefined);
  return [
    `-F "video=@$VERDICT_VIDEO_FILE"`,
    ...fields.map(([name, value]) => `-F ${shellQuote(`${name}=${String(value)}`)}`),
  ];
}

export class DecisionService {
  constructor(
    private readonly store: DecisionStore,
    private readonly publicUrl: string,
  ) {}

  async get(principal: Principal, decisionId: string): Promise<DecisionRecord> {
    requireScope(principal, 'decisions:read');
    return this.find(principal.accountId, decisionId);
  }

  async find(accountId: string, decisionId: string): Promise<DecisionRecord> {
    const record = await this.store.repository.get(accountId, decisionId);
    if (!record)
      throw new AppError('DECISION_NOT_FOUND', `Decision ${decisionId} does not exist`, { decisionId });
    return record;
  }

  async list(principal: Principal, limit: number, offset: number, filter: DecisionFilter = {}) {
    requireScope(principal, 'decisions:read');
    const rows = await this.store.repository.list(principal.accountId, limit + 1, offset, filter);
    return { decisions: rows.slice(0, limit), hasMore: rows.length > limit };
  }

  /** Every matching decision, newest first, in pages read as they are consumed (`GET /v1/decisions/export`). */
  export(principal: Principal, filter: DecisionFilter = {}): AsyncGenerator<DecisionRecord[]> {
    requireScope(principal, 'decisions:read');
    return decisionPages(this.store.repository, principal.accountId, filter);
  }

  /**
   * A single cURL command reproducing the original check (decisions §4); never the real key. Images sent inline
   * were never stored (only their SHA-256): the command reads each from the file named by $VERDICT_IMAGE_FILE (or
   * $VERDICT_IMAGE_FILE_1, _2, … for several), base64-encoding it in the shell.
   */
  async curl(principal: Principal, decisionId: string): Promise<string> {
    const record = await this.get(principal, decisionId);
    const { path, body } = record.request as { path?: string; body?: Record<string, unknown> };
    const url = `${this.publicUrl}${path ?? '/v1/check'}`;
    const start = `curl -sS -X POST ${shellQuote(url)}`;
    const auth = `-H "Authorization: Bearer $VERDICT_API_KEY"`;
    if (path === '/v1/video/upload') {
      // the video was uploaded as a file and is not kept: the command uploads it again from $VERDICT_VIDEO_FILE
      return [
        `${requireFile('VERDICT_VIDEO_FILE', 'video file this decision checked')} ${start}`,
        auth,
        ...uploadForm(body ?? {}),
      ].join(' \\\n  ');
    }
    const { data, variables } = shellBody(body ?? {});
    const guards = variables.map((v) => `${requireFile(v, 'image file this decision checked')} `).join('');
    return [`${guards}${start}`, auth, `-H 'Content-Type: application/json'`, `--data-raw ${data}`].join(
      ' \\\n  ',
    );
  }
}
