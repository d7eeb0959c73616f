import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestCa } from './https-receiver.ts';

/**
 * TEST ONLY: one HTTPS server speaking the published request/response shapes of the APIs Verdict's external
 * providers call: OpenAI `POST /v1/moderations`, OpenAI-compatible `POST /v1/chat/completions` (with `logprobs`, as
 * vLLM, llama.cpp and Ollama serve Llama Guard, ShieldGemma and gpt-oss-safeguard) and Azure AI Content Safety
 * `POST /contentsafety/text:analyze?api-version=2024-09-01`. Scores come from markers in the text, like the
 * KeywordProvider: `hate:0.9` makes the hate score 0.9. Never reachable from production configuration.
 */
export interface FakeRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  json: any;
}

export interface FakeBehaviour {
  /** Answer this status (with a JSON error body) instead of a result… */
  status?: number;
  /** …for this many requests (then answer normally); default: every request. */
  times?: number;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer 200 with this body verbatim (malformed answers). */
  rawBody?: string;
  /** Omit `logprobs` from chat completions (servers that do not return them). */
  noLogprobs?: boolean;
  retryAfter?: string;
  /** Azure image:analyze severities by Azure category (images carry no text markers). */
  imageSeverities?: Record<string, number>;
}

const OPENAI_CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
];

/** `hate:0.9`-style markers of a text. */
export function markers(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/\b([a-z_]{3,30}):([01](?:\.\d+)?)/g)) out[m[1]!] = Number(m[2]);
  return out;
}

const logprob = (p: number) => Math.log(Math.min(Math.max(p, 1e-9), 1));

export class FakeAiProviders {
  readonly requests: FakeRequest[] = [];
  behaviour: FakeBehaviour = {};
  inFlight = 0;
  maxInFlight = 0;
  /** TLS connections accepted (keep-alive reuse keeps this low). */
  connections = 0;
  private server: https.Server | null = null;
  port = 0;

  constructor(private readonly ca: TestCa) {}

  get url(): string {
    return `https://localhost:${this.port}`;
  }

  async start(): Promise<void> {
    const server = https.createServer({ key: this.ca.key, cert: this.ca.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let json: any = null;
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {}
        this.requests.push({ path: req.url ?? '', headers: req.headers, json });
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        const b = this.behaviour;
        setTimeout(() => {
          this.inFlight--;
          if (res.destroyed) return;
          if (b.status !== undefined && (b.times === undefined || b.times > 0)) {
            if (b.times !== undefined) b.times--;
            res.writeHead(b.status, {
              'content-type': 'application/json',
              ...(b.retryAfter && { 'retry-after': b.retryAfter }),
            });
            res.end(JSON.stringify({ error: { message: 'fake failure', type: 'server_error' } }));
            return;
          }
          const body = b.rawBody ?? JSON.stringify(this.answer(req.url ?? '', json));
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(body);
        }, b.delayMs ?? 0);
      });
    });
    server.on('secureConnection', () => this.connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private answer(path: string, json: any): unknown {
    if (path.startsWith('/v1/moderations')) return this.moderation(json);
    if (path.startsWith('/v1/chat/completions')) return this.chat(json);
    if (path.startsWith('/contentsafety/text:analyze')) return this.azure(json);
    if (path.startsWith('/contentsafety/image:analyze')) return this.azureImage(json);
    return { error: 'unknown path' };
  }

  /** OpenAI moderation: https://platform.openai.com/docs/api-reference/moderations/create */
  private moderation(json: { input: string; model?: string }) {
    const m = markers(String(json.input));
    const score = (c: string) => {
      const base = c.split('/')[0]!.replace('self-harm', 'self_harm');
      return c.includes('/') ? (m[c.replace('/', '_').replace('-', '_')] ?? 0.001) : (m[base] ?? 0.001);
    };
    const category_scores = Object.fromEntries(OPENAI_CATEGORIES.map((c) => [c, score(c)]));
    return {
      id: 'modr-fake',
      model: json.model ?? 'omni-moderation-latest',
      results: [
        {
          flagged: Object.values(category_scores).some((s) => s >= 0.5),
          categories: Object.fromEntries(OPENAI_CATEGORIES.map((c) => [c, category_scores[c]! >= 0.5])),
          category_scores,
          category_applied_input_types: Object.fromEntries(OPENAI_CATEGORIES.map((c) => [c, ['text']])),
        },
      ],
    };
  }

  /** Chat completions with logprobs: https://platform.openai.com/docs/api-reference/chat/object */
  private chat(json: { model: string; messages: { role: string; content: string }[]; logprobs?: boolean }) {
    const user = json.messages.find((m) => m.role === 'user')!.content;
    const system = json.messages.find((m) => m.role === 'system')?.content ?? '';
    let content: string;
    let tokens: { token: string; p: number; alt: string }[];
    if (/llama-guard/i.test(json.model)) {
      const m = markers(user);
      const codes = [
        ['violence', 'S1'],
        ['hate', 'S10'],
        ['self_harm', 'S11'],
        ['sexual', 'S12'],
      ].filter(([c]) => (m[c!] ?? 0) >= 0.5);
      const pUnsafe = Math.max(0.02, ...Object.values(m));
      content = codes.length > 0 ? `unsafe\n${codes.map(([, code]) => code).join(',')}` : 'safe';
      const first = codes.length > 0 ? 'unsafe' : 'safe';
      tokens = [
        { token: '\n\n', p: 1, alt: '\n' },
        {
          token: first,
          p: first === 'unsafe' ? pUnsafe : 1 - pUnsafe,
          alt: first === 'unsafe' ? 'safe' : 'unsafe',
        },
      ];
    } else if (/shieldgemma/i.test(json.model)) {
      const policy = /\* "No ([A-Za-z ]+)"/.exec(user)?.[1] ?? '';
      const category =
        {
          'Hate Speech': 'hate',
          Harassment: 'harassment',
          'Sexually Explicit Information': 'sexual',
          'Dangerous Content': 'violence',
        }[policy] ?? '';
      const question = /Human Question: ([\s\S]*?)\n<end_of_turn>/.exec(user)?.[1] ?? '';
      const p = markers(question)[category] ?? 0.03;
      content = p >= 0.5 ? 'Yes' : 'No';
      tokens = [{ token: content, p: p >= 0.5 ? p : 1 - p, alt: p >= 0.5 ? 'No' : 'Yes' }];
    } else {
      // gpt-oss-safeguard: the policy names the keys to answer
      const keys = /exactly these keys in this order: ([a-z_, ]+)\./.exec(system)?.[1]?.split(', ') ?? [];
      const m = markers(user);
      content = `{${keys.map((k) => `"${k}":${(m[k] ?? 0) >= 0.5 ? 1 : 0}`).join(',')}}`;
      tokens = [];
      for (const k of keys) {
        const p = m[k] ?? 0.02;
        tokens.push({ token: `{"${k}":`, p: 1, alt: '{' });
        tokens.push({ token: p >= 0.5 ? '1' : '0', p: p >= 0.5 ? p : 1 - p, alt: p >= 0.5 ? '0' : '1' });
      }
    }
    const withLogprobs = json.logprobs && !this.behaviour.noLogprobs;
    return {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: json.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content },
          finish_reason: 'stop',
          logprobs: withLogprobs
            ? {
                content: tokens.map((t) => ({
                  token: t.token,
                  logprob: logprob(t.p),
                  bytes: [...Buffer.from(t.token)],
                  top_logprobs: [
                    { token: t.token, logprob: logprob(t.p), bytes: [] },
                    { token: t.alt, logprob: logprob(1 - t.p), bytes: [] },
                  ],
                })),
              }
            : null,
        },
      ],
      usage: { prompt_tokens: 100, completion_tokens: tokens.length, total_tokens: 100 + tokens.length },
    };
  }

  /** Azure AI Content Safety image:analyze (2024-09-01): `{ image: { content: base64 } }`. */
  private azureImage(json: { image?: { content?: string }; categories?: string[] }) {
    if (typeof json.image?.content !== 'string' || json.image.content.length === 0)
      return { error: { code: 'InvalidRequestBody', message: 'image.content is required' } };
    const asked = json.categories ?? ['Hate', 'SelfHarm', 'Sexual', 'Violence'];
    return {
      categoriesAnalysis: asked.map((category) => ({
        category,
        severity: this.behaviour.imageSeverities?.[category] ?? 0,
      })),
    };
  }

  /** Azure AI Content Safety text:analyze (2024-09-01): severities 0, 2, 4, 6. */
  private azure(json: { text: string; categories?: string[] }) {
    const m = markers(json.text);
    const names: Record<string, string> = {
      Hate: 'hate',
      SelfHarm: 'self_harm',
      Sexual: 'sexual',
      Violence: 'violence',
    };
    const asked = json.categories ?? Object.keys(names);
    return {
      blocklistsMatch: [],
      categoriesAnalysis: asked.map((category) => ({
        category,
        severity: Math.min(6, Math.round(((m[names[category]!] ?? 0) * 6) / 2) * 2),
      })),
    };
  }
}
