/**
 * Generated texts that take the classifier through its code paths (plain, capitalised and ALL-CAPS words, leetspeak,
 * masks, repeated and spaced-out letters, look-alike letters, zero-width characters, numbers, prices, phone
 * numbers, URLs, e-mail addresses, mentions, hashtags, emoji, and Latin, Cyrillic, Greek, Arabic, CJK and Devanagari
 * script), short and long. Classifying them once at start lets the JIT compile those paths before the first requests
 * instead of during them. Deterministic.
 */
export function warmUpTexts(): string[] {
  const words = [
    ...'the of and you are not this that with have what just like people really good love think know time'.split(
      ' ',
    ),
    ...'idiot stupid fuck f*ck fu*k sh1t $hit a55 b!tch fuuuuck shiiit f.u.c.k a**hole @ss Scunthorpe assessment cocktail'.split(
      ' ',
    ),
    ...'kill hate die ugly loser trash whore slut cunt dick porn nude sexy suicide cut myself kill myself'.split(
      ' ',
    ),
    ...'FREE WINNER URGENT Congratulations! claim prize txt WIN to 87121 150p/msg T&Cs 18+ stop unsub PO Box'.split(
      ' ',
    ),
    ...'£100 $5 5usd €20 ¥300 ₹90 09061701461 +44 7911 123456 0800 123 4567 2day 4u 10am mp3 3.5 1,000'.split(
      ' ',
    ),
    ...'http://x.co/a?b=1 www.example.com bit.ly/xyz news.org mail@example.com a.b@c.io @user @someone #MAGA #tbt'.split(
      ' ',
    ),
    ...'😀 😡 🖕 🇺🇸 ❤️ 👍🏽 ... !!! ??? -- :) ;-) <3 &amp; "quoted" (paren) [br]'.split(' '),
    ...'Straße über Mädchen Scheiße Arschloch Hurensohn şerefsiz orospu çocuğu siktir ıyi İstanbul'.split(
      ' ',
    ),
    ...'сука блять идиот дурак пидор ѕhіt fυck ΑΒΓ αβγ ابن كلب حمار شرموطة 你好 傻逼 他妈的 バカ 死ね 바보 मूर्ख'.split(
      ' ',
    ),
    ...'f\u200buck s\u00adhit fu\u0308ck ｆｕｃｋ 𝐟𝐮𝐜𝐤 f u c k s h i t'.split(' '),
  ];
  const seps = [' ', ' ', ' ', ', ', '. ', '! ', '\n', '-', '', '  ', '/', ':', ' - '];
  let x = 12345;
  const rnd = (n: number) => {
    x = (Math.imul(x, 1103515245) + 12345) | 0;
    return ((x >>> 8) & 0xffffff) % n;
  };
  const out: string[] = [];
  for (let i = 0; i < 600; i++) {
    let s = '';
    const n = 1 + rnd(50);
    for (let j = 0; j < n; j++) {
      let w = words[rnd(words.length)]!;
      const casing = rnd(5);
      if (casing === 1) w = w.toUpperCase();
      else if (casing === 2) w = w.charAt(0).toUpperCase() + w.slice(1);
      else if (casing === 3) w += String(rnd(1000));
      s += w + seps[rnd(seps.length)]!;
    }
    out.push(s);
  }
  // character soup: every class of character next to every other, so that rarely taken branches of the tokenizer
  // (mixed scripts, symbols inside words, surrogate pairs, marks) are met too
  const palette = [
    ...'abcxyzABCXYZ0123456789',
    ...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~ \t\n',
    ...'àéîõüßçñøÀÉÎÕÜ¡¿«»°±µ·×÷',
    ...'абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВ',
    ...'αβγδεζηθικλμνξοπρστυφχψωΑΒΓ',
    ...'ابتثجحخدذرزسشصضطظعغفقكلمنهوي',
    ...'你好傻逼他妈的日本語ひらがなカタカナ한국어',
    ...'मूर्खहिंदी',
    ...'\u200b\u200c\u200d\u00ad\u0301\u0308\ufe0f',
    ...'ｆｕｃｋ１２３！',
    '😀',
    '🖕',
    '👍🏽',
    '🇺🇸',
    '𝐟',
    '𝔣',
    '\ud800',
    '\udc00',
  ];
  for (let i = 0; i < 300; i++) {
    let s = '';
    const n = 1 + rnd(120);
    for (let j = 0; j < n; j++) s += rnd(3) === 0 ? ' ' : palette[rnd(palette.length)]!;
    out.push(s);
  }
  // long texts: the service's 32 KB limit
  for (let i = 0; i < 6; i++) {
    let s = '';
    while (s.length < 32_000) s += `${out[rnd(out.length)]!} `;
    out.push(s.slice(0, 32_000));
  }
  return out;
}
