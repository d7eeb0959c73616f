import type { CategoryName } from '../../domain/taxonomy.ts';
import { isObject, malformed } from './external-provider.ts';

/** One chat completion's answer: its text and, when the server returned them, its tokens' log probabilities. */
export interface ChatAnswer {
  content: string;
  tokens: { token: string; logprob: number; top: { token: string; logprob: number }[] }[] | null;
}

/** Reads `choices[0].message.content` and `choices[0].logprobs.content` of an OpenAI chat completion, strictly. */
export function readChatAnswer(provider: string, answer: unknown): ChatAnswer {
  if (!isObject(answer) || !Array.isArray(answer.choices) || answer.choices.length < 1)
    throw malformed(provider, 'expected `choices`');
  const choice = answer.choices[0];
  if (!isObject(choice) || !isObject(choice.message) || typeof choice.message.content !== 'string')
    throw malformed(provider, 'expected `choices[0].message.content`');
  let tokens: ChatAnswer['tokens'] = null;
  const logprobs = isObject(choice.logprobs) ? choice.logprobs.content : null;
  if (Array.isArray(logprobs)) {
    tokens = [];
    for (const t of logprobs) {
      if (!isObject(t) || typeof t.token !== 'string' || typeof t.logprob !== 'number')
        throw malformed(provider, 'a `logprobs.content` entry has no token or logprob');
      const top = Array.isArray(t.top_logprobs)
        ? t.top_logprobs.filter(
            (x): x is { token: string; logprob: number } =>
              isObject(x) && typeof x.token === 'string' && typeof x.logprob === 'number',
          )
        : [];
      tokens.push({ token: t.token, logprob: t.logprob, top });
    }
  }
  return { content: choice.message.content, tokens };
}

/**
 * P(first word) among two answers from one token's log probabilities: normalised over the two when both are among
 * the top alternatives, else from the chosen token alone. null without log probabilities.
 */
export function binaryProbability(
  token: ChatAnswer['tokens'] extends (infer T)[] | null ? T : never,
  yes: string,
  no: string,
): number | null {
  const norm = (s: string) => s.trim().toLowerCase();
  const all = [{ token: token.token, logprob: token.logprob }, ...token.top];
  const p = (word: string) => {
    const hit = all.find((t) => norm(t.token) === word);
    return hit ? Math.exp(hit.logprob) : null;
  };
  const py = p(yes);
  const pn = p(no);
  if (py !== null && pn !== null && py + pn > 0) return py / (py + pn);
  const chosen = Math.exp(token.logprob);
  if (norm(token.token) === yes) return chosen;
  if (norm(token.token) === no) return 1 - chosen;
  return null;
}

const firstWordToken = (tokens: NonNullable<ChatAnswer['tokens']>) =>
  tokens.find((t) => t.token.trim() !== '');

// ---- Llama Guard 3: its chat template lists the MLCommons hazard categories; it answers "safe" or "unsafe\nS1,S10".

/** Llama Guard 3's hazard codes that correspond to a Verdict category. */
export const LLAMA_GUARD_CODES: Record<string, CategoryName> = {
  S1: 'violence', // violent crimes
  S3: 'sexual', // sex-related crimes
  S4: 'sexual', // child sexual exploitation
  S9: 'violence', // indiscriminate weapons
  S10: 'hate',
  S11: 'self_harm',
  S12: 'sexual', // sexual content
};

export function llamaGuardMessages(text: string) {
  // The model's own chat template wraps the conversation in its category list and instructions.
  return [{ role: 'user', content: text }];
}

/**
 * "safe" → every asked category scores P(unsafe) (0 without log probabilities): the model judged the text as a
 * whole. "unsafe\nS1,S10" → the named categories score P(unsafe) (1 without), the others 0.
 */
export function parseLlamaGuard(provider: string, answer: ChatAnswer, categories: CategoryName[]) {
  const lines = answer.content
    .trim()
    .split('\n')
    .map((l) => l.trim());
  const verdict = lines[0];
  if (verdict !== 'safe' && verdict !== 'unsafe')
    throw malformed(provider, 'Llama Guard answered neither safe nor unsafe');
  const named = new Set<CategoryName>();
  if (verdict === 'unsafe') {
    if (lines.length !== 2 || !/^S\d{1,2}(,\s*S\d{1,2})*$/.test(lines[1]!))
      throw malformed(provider, 'Llama Guard named no hazard codes after "unsafe"');
    for (const code of lines[1]!.split(',').map((c) => c.trim())) {
      if (!/^S([1-9]|1[0-4])$/.test(code)) throw malformed(provider, `unknown Llama Guard code ${code}`);
      const category = LLAMA_GUARD_CODES[code];
      if (category) named.add(category);
    }
  } else if (lines.length !== 1) throw malformed(provider, 'Llama Guard added text after "safe"');
  const first = answer.tokens && firstWordToken(answer.tokens);
  const pUnsafe = first ? binaryProbability(first, 'unsafe', 'safe') : null;
  const scores: Partial<Record<CategoryName, number>> = {};
  for (const category of categories) {
    if (verdict === 'safe') scores[category] = pUnsafe ?? 0;
    else scores[category] = named.has(category) ? (pUnsafe ?? 1) : 0;
  }
  return scores;
}

// ---- ShieldGemma: one policy per prompt; the first token is Yes or No.

export const SHIELDGEMMA_POLICIES: Partial<Record<CategoryName, string>> = {
  violence:
    '"No Dangerous Content": The prompt shall not contain or seek generation of content that harming oneself and/or others (e.g., accessing or building firearms and explosive devices, promotion of terrorism, instructions for suicide).',
  harassment:
    '"No Harassment": The prompt shall not contain or seek generation of content that is malicious, intimidating, bullying, or abusive content targeting another individual (e.g., physical threats, denial of tragic events, disparaging victims of violence).',
  hate: '"No Hate Speech": The prompt shall not contain or seek generation of content that targeting identity and/or protected attributes (e.g., racial slurs, promotion of discrimination, calls to violence against protected groups) or dehumanizing/belittling/vilifying on the bases of race, ethnicity, religion, disability, age, nationality, veteran status, sexual orientation, gender, gender identity, caste, or any other protected status.',
  sexual:
    '"No Sexually Explicit Information": The prompt shall not contain or seek generation of content that contains references to sexual acts or other lewd content (e.g., sexually graphic descriptions, content aimed at causing arousal). Medical or scientific terms related to human anatomy or sex education are permitted.',
};

export function shieldGemmaMessages(text: string, category: CategoryName) {
  const content = `You are a policy expert trying to help determine whether a user prompt is in violation of the defined safety policies.

<start_of_turn>
Human Question: ${text}
<end_of_turn>

Our safety principle is defined in the below:

* ${SHIELDGEMMA_POLICIES[category]}

===

Does the human question violate the above principle? Your answer must start with 'Yes' or 'No'. And then walk through step by step to be sure we answer correctly.`;
  return [{ role: 'user', content }];
}

/** P(Yes) from the first token's log probabilities; without them, Yes → 1 and No → 0. */
export function parseShieldGemma(provider: string, answer: ChatAnswer): number {
  const word = /^(yes|no)\b/i.exec(answer.content.trim())?.[1]?.toLowerCase();
  if (!word) throw malformed(provider, "ShieldGemma's answer does not start with Yes or No");
  const first = answer.tokens && firstWordToken(answer.tokens);
  const p = first ? binaryProbability(first, 'yes', 'no') : null;
  return p ?? (word === 'yes' ? 1 : 0);
}

// ---- gpt-oss-safeguard: the policy is the prompt; it answers one JSON object of 0/1 labels.

const DEFINITIONS: Record<CategoryName, string> = {
  toxicity: 'rude, disrespectful or unreasonable language likely to make someone leave a discussion',
  harassment: 'insults, intimidation, bullying or abuse aimed at a person or a group of people',
  hate: 'attacks or dehumanisation on the basis of a protected attribute (race, ethnicity, religion, nationality, disability, sexual orientation, gender, gender identity, caste)',
  violence:
    'threats of violence, incitement to violence, or glorification or graphic description of violence',
  sexual: 'sexually explicit content, or any sexual content involving minors',
  self_harm: 'promotion of, encouragement of, intent to commit, or instructions for suicide or self-harm',
  profanity: 'swear words, obscenities or vulgar language, whoever it is aimed at',
  spam: 'unsolicited advertising, scams, phishing, or repetitive promotional content',
  suggestive: 'sexually suggestive but not explicit content',
};

export function safeguardMessages(text: string, categories: CategoryName[]) {
  const policy = [
    '# Content policy',
    '',
    'Classify the user content against each category below. Label 1 if the content violates the category, 0 if it does not.',
    '',
    ...categories.map((c) => `- ${c}: ${DEFINITIONS[c]}`),
    '',
    '# Output',
    '',
    `Answer with one JSON object and nothing else, with exactly these keys in this order: ${categories.join(', ')}. Each value is 0 or 1. Example: {${categories.map((c) => `"${c}":0`).join(',')}}`,
  ].join('\n');
  return [
    { role: 'system', content: policy },
    { role: 'user', content: text },
  ];
}

/** The JSON labels, strictly; with log probabilities, each label's P(1) from its digit token instead. */
export function parseSafeguard(provider: string, answer: ChatAnswer, categories: CategoryName[]) {
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.content.trim());
  } catch {
    throw malformed(provider, 'gpt-oss-safeguard did not answer one JSON object');
  }
  if (!isObject(parsed)) throw malformed(provider, 'gpt-oss-safeguard did not answer one JSON object');
  const keys = Object.keys(parsed);
  if (keys.length !== categories.length || categories.some((c) => !keys.includes(c)))
    throw malformed(provider, `gpt-oss-safeguard must label exactly ${categories.join(', ')}`);
  for (const key of keys)
    if (parsed[key] !== 0 && parsed[key] !== 1) throw malformed(provider, `label of "${key}" is not 0 or 1`);
  const digits = (answer.tokens ?? []).filter((t) => /^[01]$/.test(t.token.trim()));
  const scores: Partial<Record<CategoryName, number>> = {};
  keys.forEach((key, index) => {
    const token = digits.length === keys.length ? digits[index] : undefined;
    const p = token ? binaryProbability(token, '1', '0') : null;
    scores[key as CategoryName] = p ?? (parsed as Record<string, number>)[key]!;
  });
  return scores;
}
