/**
 * Template-generated examples for categories the datasets barely cover (sexual, self-harm, threats, comment
 * spam) and for hard negatives (harmless look-alikes, plain sentences in every supported language). Fully
 * deterministic: a seeded PRNG picks slot fillers. Metrics on these are NOT evidence of real-world quality.
 */
import type { SupportedLanguage } from '../src/constants.ts';
import { mulberry32 } from '../src/hash.ts';

interface Gen {
  text: string;
  lang: SupportedLanguage;
  source: string;
  labels: Int8Array;
}

const HEADS = ['toxicity', 'harassment', 'hate', 'violence', 'sexual', 'self_harm', 'profanity', 'spam'];

function labels(pos: string[], unknown: string[] = []): Int8Array {
  const l = new Int8Array(8);
  HEADS.forEach((h, i) => {
    l[i] = pos.includes(h) ? 1 : unknown.includes(h) ? -1 : 0;
  });
  return l;
}

function expand(templates: string[], slots: Record<string, string[]>, n: number, seed: number): string[] {
  const rnd = mulberry32(seed);
  const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)]!;
  const out = new Set<string>();
  for (let i = 0; i < n * 3 && out.size < n; i++) {
    out.add(pick(templates).replace(/\{(\w+)\}/g, (_, k: string) => pick(slots[k] ?? [k])));
  }
  return [...out];
}

const URLS = [
  'http://bit.ly/3xYz9',
  'www.cheap-deals.biz',
  'https://win-prize.click/claim',
  'tinyurl.com/freecash',
  'https://t.me/cryptopump',
];

export function generated(): Gen[] {
  const out: Gen[] = [];
  const add = (texts: string[], source: string, l: Int8Array, lang: SupportedLanguage = 'en') => {
    for (const text of texts) out.push({ text, lang, source: `generated:${source}`, labels: l });
  };
  add(
    expand(
      [
        'send me your {nudes} {now}',
        'I want to {act} you so hard tonight',
        'check out my {porn} videos {url}',
        'she has huge {body} and a {body2}',
        'come watch me on {site} {now}',
        'hot {milf} pics, {act} all night',
        "I'm so horny, let's {act}",
        'wanna see my {body2}? dm me',
        'my {body2} is so wet for you',
        '{site}: {porn} for free',
        'let me {act} your {body2}',
        'bend over so I can {act} you',
        'I would love to {act} her {body}',
      ],
      {
        nudes: ['nudes', 'naked pics', 'tits', 'dick pics'],
        now: ['now', 'babe', 'tonight', '😈', 'right now'],
        act: ['fuck', 'suck', 'ride', 'lick', 'bang', 'screw', 'kiss and touch', 'undress'],
        porn: ['porn', 'xxx', 'sex', 'nsfw', 'hardcore'],
        body: ['boobs', 'tits', 'ass', 'breasts'],
        body2: ['pussy', 'cock', 'dick', 'ass'],
        site: ['onlyfans', 'pornhub', 'my cam', 'xvideos'],
        milf: ['milf', 'teen', 'amateur', 'camgirl'],
        url: URLS,
      },
      260,
      11,
    ),
    'sexual',
    labels(['sexual', 'profanity'], ['toxicity', 'harassment', 'spam']),
  );
  add(
    expand(
      [
        'I want to {die}',
        "I'm going to {kms} tonight",
        'I {cut} myself again last night',
        'nobody would miss me if I {died}',
        'I have the pills ready, {goodbye}',
        "I can't do this anymore, I want to {die}",
        'thinking about {kms} every day',
        'I wish I was dead',
        'tonight I will {kms}',
        'I just want the pain to stop forever, {goodbye}',
        'what is the easiest way to {kms}',
        'I wrote my suicide note',
        'I keep {cut} my arms to feel something',
      ],
      {
        die: ['die', 'end it all', 'end my life', 'kill myself', 'disappear forever'],
        kms: [
          'kill myself',
          'end my life',
          'take my own life',
          'overdose',
          'hang myself',
          'jump off a bridge',
        ],
        cut: ['cut', 'cutting', 'burned', 'hurt'],
        died: ['died', 'killed myself', 'was gone'],
        goodbye: ['goodbye everyone', 'sorry mom', 'this is the end', 'I am done'],
      },
      200,
      12,
    ),
    'self_harm',
    labels(['self_harm'], ['toxicity', 'violence']),
  );
  add(
    expand(
      [
        'I will {kill} you',
        "I'm going to {kill} you and your {family}",
        'I know where you live, {threat}',
        'someone should {kill} all the {group}',
        "I'll {shoot} up the {place} tomorrow",
        'you deserve to be {killed}',
        'I will find you and {kill} you',
        'watch your back, {threat}',
        '{group} should be {killed}',
        "I'm bringing a gun to the {place}",
        'I am going to {kill} my {family}',
      ],
      {
        kill: ['kill', 'murder', 'stab', 'shoot', 'strangle', 'beat the shit out of'],
        family: ['family', 'kids', 'wife', 'boss', 'neighbours'],
        threat: ["you're dead", 'I will hurt you', "you won't see it coming", 'I will burn your house'],
        group: ['immigrants', 'those people', 'politicians', 'cops', 'journalists'],
        shoot: ['shoot', 'bomb', 'blow'],
        place: ['school', 'office', 'mall', 'mosque', 'church', 'synagogue'],
        killed: ['killed', 'shot', 'hanged', 'executed', 'burned alive'],
      },
      220,
      13,
    ),
    'violence',
    labels(['violence', 'toxicity'], ['harassment', 'hate', 'profanity']),
  );
  add(
    expand(
      [
        'Check out my channel {url} {cta}',
        'Earn {money} a day working from home! Visit {url}',
        'DM me for {promo}',
        'Buy {followers} cheap at {url}',
        '🔥 {crypto} giveaway! Send 0.1 BTC and get 1 BTC back {url}',
        'Click here to claim your prize {url}',
        'Make {money} per week with this one trick {url}',
        '{cta} {url} {cta}',
        'Hot singles in your area {url}',
        'Get {followers} now!!! {url}',
        'Limited offer: {promo} at {url}',
        'I made {money} last month with {crypto}, ask me how {url}',
        'Visit my profile for {promo} 💰💰',
      ],
      {
        url: URLS,
        cta: ['subscribe!', 'follow back', 'link in bio', 'act now', 'free!!!', 'click now'],
        money: ['$500', '$300', '$1000', '$5,000', '£250'],
        promo: ['promo codes', 'free followers', 'cheap likes', '90% discount', 'free gift cards'],
        followers: ['followers', 'likes', 'views', 'subscribers'],
        crypto: ['Bitcoin', 'crypto', 'ETH', 'forex'],
      },
      260,
      14,
    ),
    'spam',
    labels(['spam']),
  );
  // Hard negatives: look-alikes of bad words and benign uses of risky vocabulary.
  const benign = [
    'Scunthorpe United won the match on Saturday',
    'The assessment is due next Friday',
    'We had a cocktail at the bar',
    'My class starts at nine',
    'My therapist helped me a lot this year',
    'Dick Van Dyke starred in Mary Poppins',
    'I live in Essex near Middlesex',
    'The shiitake mushrooms were delicious',
    'He passed the bar exam',
    'Sex education should be taught in schools',
    'Breast cancer awareness month starts today',
    'Kill the process with kill -9',
    'This workout is killing me',
    "I'm dying of laughter",
    'We killed it at the concert last night',
    'He shot a great photo of the sunset',
    'The suicide prevention hotline is open 24/7',
    'Call 988 if you need someone to talk to',
    'The cock crowed at dawn',
    'Our cat is a fluffy pussycat',
    'Hancock Park is lovely',
    'The analyst reviewed the analysis',
    'Grape juice is my favourite',
    'Document the classic assumptions',
    'I need to pass the assessment',
    'Read the docs at https://example.com/docs',
    'The meeting link is https://meet.example.org/abc',
    'My phone number changed, call me at home',
    'The sale ends on Friday',
    'She is a therapist in Sussex',
    'The Cockburn family lives in Scotland',
    'Shoot me a message when you arrive',
    'The bomb squad defused the device safely',
    'He was a hero who died saving others',
    'I could murder a pizza right now',
    'Black lives matter',
    'I am a proud gay man',
    'Muslims celebrate Eid this week',
    'My grandmother is Jewish',
    'Women deserve equal pay',
    'Immigrants built this city',
    'I am trans and happy',
    'My neighbour is Mexican',
    // the sexual templates above say "naked pics" and "dick pics": everyday photos, so that "pics" alone is not sexual
    'Here are the pics from our trip to Lisbon',
    'Posting the wedding pics tonight',
    'Did you see the pics from the game?',
    'Can you share the pics from the party when you get a chance',
    'Loved your vacation pics, the beach looks amazing',
    'Uploading my holiday photos to the album now',
    'The pics of the puppy are so cute',
    'Nice pics of the mountains',
  ];
  add(benign, 'hard_negative', labels([]));
  add(
    expand(
      ['{det} {word} {rest}', 'I love {det} {word}', '{det} {word} was {adj}', 'Have you seen {det} {word}?'],
      {
        det: ['the', 'my', 'our', 'this', 'a'],
        word: [
          'class',
          'classic',
          'assessment',
          'assistant',
          'passion',
          'grass',
          'glass',
          'bass',
          'cocktail',
          'peacock',
          'Hancock',
          'Scunthorpe',
          'Essex',
          'Sussex',
          'therapist',
          'analysis',
          'Dickens novel',
          'compass',
          'cockpit',
          'mass',
          'embassy',
          'associate',
          'hitchcock film',
          'shuttlecock',
          'document',
          'title',
          'button',
          'scrap',
          'Matsushita',
          'cumin',
          'circumstance',
          'specialist',
          'Penistone',
          'raccoon',
          'niggle',
          'snigger',
          'sextant',
          'Sextet',
          'Middlesex',
          'Dickinson poem',
          'hello',
          'weather',
          'game',
        ],
        rest: ['is great', 'starts soon', 'is on Monday', 'needs more time', 'looks nice'],
        adj: ['fine', 'amazing', 'boring', 'long', 'short'],
      },
      260,
      15,
    ),
    'hard_negative',
    labels([]),
  );
  // Plain sentences in every supported language (a different set is used by the tests).
  const plain: [SupportedLanguage, string[]][] = [
    ['en', ['Thank you for your help yesterday', 'The train leaves at seven tomorrow morning']],
    ['es', ['Gracias por tu ayuda ayer', 'El tren sale mañana a las siete', 'Me gusta mucho esta ciudad']],
    ['fr', ['Merci pour ton aide hier', 'Le train part demain à sept heures', "J'aime beaucoup cette ville"]],
    [
      'de',
      ['Danke für deine Hilfe gestern', 'Der Zug fährt morgen um sieben Uhr', 'Ich mag diese Stadt sehr'],
    ],
    ['pt', ['Obrigado pela sua ajuda ontem', 'O trem sai amanhã às sete', 'Eu gosto muito desta cidade']],
    [
      'it',
      ['Grazie per il tuo aiuto ieri', 'Il treno parte domani alle sette', 'Mi piace molto questa città'],
    ],
    ['ru', ['Спасибо за помощь вчера', 'Поезд отправляется завтра в семь', 'Мне очень нравится этот город']],
    ['tr', ['Dün yardımın için teşekkürler', 'Tren yarın saat yedide kalkıyor', 'Bu şehri çok seviyorum']],
    ['ar', ['شكرا على مساعدتك أمس', 'القطار يغادر غدا في السابعة', 'أحب هذه المدينة كثيرا']],
    ['hi', ['कल आपकी मदद के लिए धन्यवाद', 'ट्रेन कल सुबह सात बजे निकलती है', 'मुझे यह शहर बहुत पसंद है']],
    [
      'id',
      [
        'Terima kasih atas bantuanmu kemarin',
        'Kereta berangkat besok jam tujuh',
        'Saya sangat suka kota ini',
      ],
    ],
    ['ja', ['昨日は手伝ってくれてありがとう', '電車は明日の七時に出発します', 'この町がとても好きです']],
    ['ko', ['어제 도와줘서 고마워요', '기차는 내일 일곱 시에 출발해요', '저는 이 도시를 정말 좋아해요']],
    ['pl', ['Dziękuję za pomoc wczoraj', 'Pociąg odjeżdża jutro o siódmej', 'Bardzo lubię to miasto']],
    [
      'nl',
      [
        'Bedankt voor je hulp gisteren',
        'De trein vertrekt morgen om zeven uur',
        'Ik hou heel erg van deze stad',
      ],
    ],
    [
      'sv',
      ['Tack för din hjälp igår', 'Tåget går i morgon klockan sju', 'Jag tycker mycket om den här staden'],
    ],
    ['cs', ['Děkuji za tvou pomoc včera', 'Vlak odjíždí zítra v sedm', 'Toto město mám moc rád']],
  ];
  for (const [lang, texts] of plain) add(texts, `plain_${lang}`, labels([]), lang);
  const morePlain: [SupportedLanguage, string[]][] = [
    [
      'en',
      [
        'Can you send me the report by Monday?',
        'We are planning a trip to the mountains next summer',
        'The new café downtown has great coffee',
        'Please remember to water the plants',
        'I finished reading the book you recommended',
      ],
    ],
    [
      'es',
      [
        '¿Puedes enviarme el informe el lunes?',
        'Estamos planeando un viaje a la montaña el próximo verano',
        'El nuevo café del centro tiene muy buen café',
        'Por favor, recuerda regar las plantas',
        'Terminé de leer el libro que me recomendaste',
      ],
    ],
    [
      'fr',
      [
        "Peux-tu m'envoyer le rapport lundi ?",
        "Nous prévoyons un voyage à la montagne l'été prochain",
        'Le nouveau café du centre-ville sert un excellent café',
        "N'oublie pas d'arroser les plantes",
        "J'ai fini de lire le livre que tu m'as conseillé",
      ],
    ],
    [
      'de',
      [
        'Kannst du mir den Bericht bis Montag schicken?',
        'Wir planen nächsten Sommer eine Reise in die Berge',
        'Das neue Café in der Innenstadt hat tollen Kaffee',
        'Bitte denk daran, die Pflanzen zu gießen',
        'Ich habe das Buch zu Ende gelesen, das du empfohlen hast',
      ],
    ],
    [
      'pt',
      [
        'Você pode me enviar o relatório até segunda?',
        'Estamos planejando uma viagem às montanhas no próximo verão',
        'O novo café do centro tem um ótimo café',
        'Por favor, lembre-se de regar as plantas',
        'Terminei de ler o livro que você recomendou',
      ],
    ],
    [
      'it',
      [
        'Puoi mandarmi il rapporto entro lunedì?',
        'Stiamo pianificando un viaggio in montagna la prossima estate',
        'Il nuovo bar in centro ha un ottimo caffè',
        'Ricordati di innaffiare le piante',
        'Ho finito di leggere il libro che mi hai consigliato',
      ],
    ],
    [
      'ru',
      [
        'Можешь прислать мне отчёт к понедельнику?',
        'Мы планируем поездку в горы следующим летом',
        'В новом кафе в центре отличный кофе',
        'Пожалуйста, не забудь полить цветы',
        'Я дочитал книгу, которую ты мне посоветовал',
      ],
    ],
    [
      'tr',
      [
        'Raporu pazartesiye kadar gönderebilir misin?',
        'Gelecek yaz dağlara bir gezi planlıyoruz',
        'Şehir merkezindeki yeni kafenin kahvesi çok güzel',
        'Lütfen bitkileri sulamayı unutma',
        'Önerdiğin kitabı okumayı bitirdim',
      ],
    ],
    [
      'ar',
      [
        'هل يمكنك إرسال التقرير قبل يوم الاثنين؟',
        'نخطط لرحلة إلى الجبال الصيف القادم',
        'المقهى الجديد في وسط المدينة يقدم قهوة رائعة',
        'من فضلك تذكر أن تسقي النباتات',
        'انتهيت من قراءة الكتاب الذي نصحتني به',
      ],
    ],
    [
      'hi',
      [
        'क्या आप सोमवार तक रिपोर्ट भेज सकते हैं?',
        'हम अगली गर्मियों में पहाड़ों की यात्रा की योजना बना रहे हैं',
        'शहर के नए कैफ़े की कॉफ़ी बहुत अच्छी है',
        'कृपया पौधों को पानी देना याद रखें',
        'मैंने वह किताब पढ़ ली जो आपने सुझाई थी',
      ],
    ],
    [
      'id',
      [
        'Bisakah kamu mengirim laporannya sebelum hari Senin?',
        'Kami merencanakan perjalanan ke gunung musim panas depan',
        'Kafe baru di pusat kota kopinya enak sekali',
        'Tolong jangan lupa menyiram tanaman',
        'Saya sudah selesai membaca buku yang kamu rekomendasikan',
      ],
    ],
    [
      'ja',
      [
        '月曜日までに報告書を送ってもらえますか',
        '来年の夏に山へ旅行する予定です',
        '駅前の新しいカフェのコーヒーはとてもおいしいです',
        '植物に水をやるのを忘れないでください',
        'おすすめしてくれた本を読み終わりました',
      ],
    ],
    [
      'ko',
      [
        '월요일까지 보고서를 보내 줄 수 있어요?',
        '내년 여름에 산으로 여행을 갈 계획이에요',
        '시내에 새로 생긴 카페의 커피가 정말 맛있어요',
        '식물에 물 주는 것을 잊지 마세요',
        '추천해 준 책을 다 읽었어요',
      ],
    ],
    [
      'pl',
      [
        'Czy możesz przesłać mi raport do poniedziałku?',
        'Planujemy wyjazd w góry następnego lata',
        'Nowa kawiarnia w centrum ma świetną kawę',
        'Pamiętaj proszę, żeby podlać kwiaty',
        'Skończyłem czytać książkę, którą mi poleciłeś',
        'Sklep jest otwarty od poniedziałku do piątku',
      ],
    ],
    [
      'nl',
      [
        'Kun je me het rapport voor maandag sturen?',
        'We plannen volgende zomer een reis naar de bergen',
        'Het nieuwe café in het centrum heeft heerlijke koffie',
        'Vergeet alsjeblieft niet de planten water te geven',
        'Ik heb het boek uitgelezen dat je me aanraadde',
      ],
    ],
    [
      'sv',
      [
        'Kan du skicka rapporten till mig före måndag?',
        'Vi planerar en resa till fjällen nästa sommar',
        'Det nya kaféet i centrum har jättegott kaffe',
        'Kom ihåg att vattna blommorna',
        'Jag har läst ut boken som du rekommenderade',
      ],
    ],
    [
      'cs',
      [
        'Můžeš mi poslat zprávu do pondělí?',
        'Příští léto plánujeme výlet do hor',
        'Nová kavárna v centru má skvělou kávu',
        'Nezapomeň prosím zalít květiny',
        'Dočetl jsem knihu, kterou jsi mi doporučil',
        'Obchod je otevřený od pondělí do pátku',
      ],
    ],
  ];
  for (const [lang, texts] of morePlain) add(texts, `plain_${lang}`, labels([]), lang);
  return out;
}
