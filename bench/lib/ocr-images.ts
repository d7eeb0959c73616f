import sharp from 'sharp';
import type { Language } from '../../packages/server/src/domain/taxonomy.ts';
import { OCR_MODELS, type Script } from '../../packages/server/src/ocr/languages.ts';

/** Short sentences the team wrote for this bench (two per language: an everyday line and a threat or insult). */
export const SENTENCES: Record<Language, [string, string]> = {
  en: ['The weather is lovely today', 'I will find you and hurt you'],
  es: ['Mañana vamos a la playa', 'Te voy a encontrar y pegar'],
  fr: ['Nous mangeons ensemble à midi', 'Je vais te trouver ce soir'],
  de: ['Wir fahren morgen früh nach Hause', 'Ich werde dich heute finden'],
  pt: ['Vamos almoçar no restaurante', 'Eu vou te encontrar amanhã'],
  it: ['Oggi il caffè è molto buono', 'Ti troverò domani sera'],
  ru: ['Сегодня очень хорошая погода', 'Я найду тебя и убью'],
  tr: ['Bugün hava çok güzel', 'Seni yarın bulacağım'],
  ar: ['الطقس جميل جدا اليوم', 'سوف أجدك وأقتلك'],
  hi: ['आज मौसम बहुत अच्छा है', 'मैं तुम्हें ढूंढ कर मार दूंगा'],
  id: ['Cuaca hari ini sangat cerah', 'Aku akan menemukanmu besok'],
  ja: ['今日はとても良い天気です', 'お前を見つけて殺してやる'],
  ko: ['오늘 날씨가 정말 좋아요', '너를 찾아서 죽일 거야'],
  pl: ['Dzisiaj jest piękna pogoda', 'Znajdę cię jutro wieczorem'],
  nl: ['Het weer is vandaag mooi', 'Ik ga je morgen vinden'],
  sv: ['Vädret är fint i dag', 'Jag kommer att hitta dig'],
  cs: ['Dnes je krásné počasí', 'Zítra tě najdu doma'],
};

/** Two fonts per script, from Debian's fonts-dejavu, fonts-noto-core and fonts-noto-cjk. */
export const FONTS: Record<Script, [string, string]> = {
  latin: ['DejaVu Sans', 'Noto Serif'],
  cyrillic: ['DejaVu Sans', 'Noto Serif'],
  arabic: ['Noto Sans Arabic', 'Noto Naskh Arabic'],
  devanagari: ['Noto Sans Devanagari', 'Noto Serif Devanagari'],
  japanese: ['Noto Sans CJK JP', 'Noto Serif CJK JP'],
  korean: ['Noto Sans CJK KR', 'Noto Serif CJK KR'],
};

export type Style = 'meme' | 'screenshot' | 'banner';
export const STYLES: Style[] = ['meme', 'screenshot', 'banner'];
export const SIZES = [30, 44];

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

async function background(style: Style, seed: number): Promise<Buffer> {
  if (style !== 'meme') {
    const colour = style === 'screenshot' ? '#f5f5f5' : '#1d3557';
    return sharp({ create: { width: 720, height: 200, channels: 3, background: colour } })
      .png()
      .toBuffer();
  }
  // a photo-like ground: smooth random texture
  return sharp({
    create: {
      width: 720,
      height: 200,
      channels: 3,
      background: '#000',
      noise: { type: 'gaussian', mean: 100 + (seed % 5) * 10, sigma: 50 },
    },
  })
    .blur(3)
    .png()
    .toBuffer();
}

/** One line of text on a 720×200 JPEG: a meme caption (white, outlined black), a screenshot line, or a banner. */
export async function renderText(
  text: string,
  font: string,
  size: number,
  style: Style,
  seed: number,
): Promise<Buffer> {
  const paint =
    style === 'meme'
      ? 'fill="white" stroke="black" stroke-width="2" font-weight="bold"'
      : style === 'banner'
        ? 'fill="#ffd166"'
        : 'fill="#222"';
  // librsvg lays right-to-left scripts out by itself (Pango): every line starts at the left margin
  const svg = `<svg width="720" height="200"><text x="20" y="110" font-family="${font}" font-size="${size}" ${paint}>${xmlEscape(text)}</text></svg>`;
  return sharp(await background(style, seed))
    .composite([{ input: Buffer.from(svg) }])
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** Words after normalisation (NFC, lower case, split on anything not a letter or digit); Japanese by character. */
export function words(s: string, language: Language): string[] {
  const norm = s.normalize('NFC').toLowerCase();
  if (language === 'ja') return norm.match(/[\p{L}\p{N}]/gu) ?? [];
  return norm.split(/[^\p{L}\p{M}\p{N}]+/u).filter((w) => w !== '');
}

/** How many of the expected words were read (each read word counts once). */
export function wordsFound(expected: string[], read: string[]): number {
  const left = [...read];
  return expected.filter((w) => {
    const i = left.indexOf(w);
    if (i < 0) return false;
    left.splice(i, 1);
    return true;
  }).length;
}

/** Every image of the set for one language: 2 fonts × 3 styles × 2 sizes, the two sentences alternating. */
export async function imagesFor(
  language: Language,
): Promise<{ image: Buffer; text: string; style: Style }[]> {
  const { script } = OCR_MODELS[language];
  const out: { image: Buffer; text: string; style: Style }[] = [];
  let seed = 0;
  for (const font of FONTS[script]) {
    for (const style of STYLES) {
      for (const size of SIZES) {
        const text = SENTENCES[language][seed % 2]!;
        out.push({ image: await renderText(text, font, size, style, seed++), text, style });
      }
    }
  }
  return out;
}
