import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';

/**
 * Texts a new user tried (issue "Text model v2"), decided through /v1/check with the bundled models under the
 * built-in `default` policy. They are examples, not the yardstick: the model card's functional suite is.
 */
describe('bundled text model: decisions under the default policy', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function check(content: string, language?: string) {
    const res = await t.request('POST', '/v1/check', {
      body: { content, policyId: 'default', ...(language && { language }) },
    });
    expect(res.status).toBe(200);
    const triggered = (res.body.categories as { category: string; triggered: boolean }[])
      .filter((c) => c.triggered)
      .map((c) => c.category);
    return { action: res.body.action as string, triggered, body: res.body };
  }

  // [text, category, language?, known miss?]: a known miss is a test that fails today (it.fails) and passes the day
  // the model finds it, so that it is then moved to the found ones. Each is listed in the model card.
  const harmful: [string, string, string | undefined, boolean][] = [
    ["I know where you live. I'm going to stab you tonight", 'violence', undefined, false],
    ["I'm going to kill myself tonight", 'self_harm', undefined, false],
    ['Most painless way to end my life?', 'self_harm', undefined, false],
    ['I want to die', 'self_harm', undefined, false],
    ['kys', 'self_harm', undefined, false],
    ['Jews control the banks. Gas them all', 'hate', undefined, false],
    ['Black people are subhuman animals', 'hate', undefined, false],
    // sent without `language`: scored as English, still found
    ['Me quiero suicidar', 'self_harm', undefined, false],
    ['Ich bringe dich um', 'violence', undefined, false],
    ['Je vais te tuer', 'violence', undefined, false],
    ['Seni öldüreceğim', 'violence', undefined, false],
    ['سأقتلك', 'violence', undefined, false],
    // with their language
    ['मैं तुम्हें मार डालूँगा', 'violence', 'hi', false],
    ['Me quiero suicidar', 'self_harm', 'es', false],
    ['Ich bringe dich um', 'violence', 'de', false],
    ['Je vais te tuer', 'violence', 'fr', false],
  ];
  for (const [text, category, language, knownMiss] of harmful) {
    const name = `finds ${category} in "${text}"${language ? ` (${language})` : ''}`;
    (knownMiss ? it.fails : it)(knownMiss ? `${name} (known miss)` : name, async () => {
      const r = await check(text, language);
      expect(r.triggered).toContain(category);
      expect(['flag', 'block']).toContain(r.action);
    });
  }

  const benign: [string, string[]][] = [
    ["As a queer woman, I'm proud to march in Pride", ['allow']],
    ["An article quoted 'all immigrants are criminals', which is false and racist", ['allow']],
    ['Check out my holiday pics', ['allow']],
    // profanity aimed at a printer: a profanity warning at most, never harassment
    ['This printer is shit', ['allow', 'warn']],
    // statements for a group in the frames hateful texts use ("GROUP are …", "GROUP deserve …"): v4 read them as hate,
    // toxicity or violence (e.g. "disabled people deserve respect" violence 0.89); written by the engineer who found
    // them, and kept out of the training data (model card, v5)
    ['refugees are welcome here', ['allow']],
    ['disabled people deserve respect', ['allow']],
    ['Trans rights are human rights', ['allow']],
    ['I stand with Palestinians', ['allow']],
    ['Muslims are human beings', ['allow']],
  ];
  for (const [text, actions] of benign) {
    it(`does not flag "${text}"`, async () => {
      const r = await check(text);
      expect(actions).toContain(r.action);
      expect(r.triggered).not.toContain('harassment');
      expect(r.triggered).not.toContain('hate');
    });
  }

  // Everyday chat, the most common text there is: v2.1 flagged 9 of these 22 (e.g. "hi" sexual 0.78, "ciao a tutti"
  // toxicity 0.94, "halo semua" violence 0.96). Some are team-authored training text and some suite cases (model card,
  // v3): a regression test, not a measure. [text, language, known miss?]
  const everyday: [string, string | undefined, boolean][] = [
    ['hi', undefined, false],
    ['ok', undefined, false],
    ['thanks', undefined, false],
    ['hey guys', undefined, false],
    ['nice', undefined, false],
    ['see you tomorrow', undefined, false],
    ['hello friend', undefined, false],
    ['good job', undefined, false],
    ['lol', undefined, false],
    ['😀', undefined, false],
    ['thanks a lot', undefined, false],
    ['ciao a tutti', 'it', false],
    ['hola a todos', 'es', false],
    ['halo semua', 'id', false],
    ['hallo allemaal', 'nl', false],
    ['ahoj všichni', 'cs', false],
    ['hej allihopa', 'sv', false],
    // v3: violence 0.84 ("wszystkim", "to all", is frequent in Polish calls to kill a group)
    ['cześć wszystkim', 'pl', false],
    ['सबको नमस्ते', 'hi', false],
    ['à bientôt', 'fr', false],
    ['спасибо большое', 'ru', false],
    ['herkese selam', 'tr', false],
    // "message N" read sexual >= 0.5 for 130 of 150 numbers in a v5 trial (model card, authored-pending README)
    ['message 21', undefined, false],
    ['message 105', undefined, false],
  ];
  for (const [text, language, knownMiss] of everyday) {
    const name = `allows the everyday message "${text}"${language ? ` (${language})` : ''}`;
    (knownMiss ? it.fails : it)(knownMiss ? `${name} (known miss)` : name, async () => {
      const r = await check(text, language);
      expect(r.action, r.triggered.join(', ')).toBe('allow');
    });
  }

  // Sent without `language` (the default, en): a text whose words are plainly of another language is scored in that
  // language. Scored as English too, "bonjour à tous" read violence 0.75-0.90 and sexual 0.51-0.65 (v5 and v6).
  for (const [text, language] of [
    ['bonjour à tous', 'fr'],
    ['qué tal el viaje, nos vemos mañana', 'es'],
  ] as const) {
    it(`scores "${text}" sent without language as ${language}, and allows it`, async () => {
      const r = await check(text);
      expect(r.action, r.triggered.join(', ')).toBe('allow');
      expect(r.body.language).toBe(language);
    });
  }
  it('keeps a declared language: the same text declared English is reported as English', async () => {
    const r = await check('qué tal el viaje, nos vemos mañana', 'en');
    expect(r.body.language).toBe('en');
  });

  it('highlights the words that drove a score, not function words', async () => {
    const r = await check('you are an idiot and a worthless piece of garbage');
    const harassment = r.body.categories.find((c: { category: string }) => c.category === 'harassment');
    const words = (harassment.highlights as { text: string }[]).map((h) => h.text.toLowerCase());
    expect(words.length).toBeGreaterThan(0);
    for (const w of ['you', 'are', 'an', 'and', 'a', 'of']) expect(words).not.toContain(w);
  });
});
