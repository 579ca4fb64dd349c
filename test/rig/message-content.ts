import type { Mailbox } from './message-builder.ts';

/**
 * Word pools for generated mail. Deliberately full of the things that break
 * mail code: accents, umlauts, CJK, emoji, quotes and commas in names.
 */

export const PEOPLE: readonly Mailbox[] = [
  { name: 'Bob Smith', address: 'bob@example.com' },
  { name: 'Zoë Dupré', address: 'zoe.dupre@exemple.fr' },
  { name: 'Jürgen Müller', address: 'juergen@beispiel.de' },
  { name: '山田 太郎', address: 'taro.yamada@example.jp' },
  { name: 'Łukasz Wiśniewski', address: 'lukasz@przyklad.pl' },
  { name: 'Ana Martins 🚀', address: 'ana@launch.example' },
  { name: 'Smith, Carol', address: 'carol.smith@example.org' },
  { name: 'Dave "DJ" Jones', address: 'dave@example.net' },
  { name: 'Eve Adams', address: 'eve@example.com' },
  { address: 'frank@example.io' },
  { name: 'Grace Hopper', address: 'grace@navy.example' },
  { name: 'Søren Kierkegaard', address: 'soren@eksempel.dk' },
];

interface Newsletter {
  sender: Mailbox;
  listId: string;
  listName: string;
  /** false = only a mailto: target (older list software) */
  https: boolean;
  oneClick: boolean;
  topics: readonly string[];
}

export const NEWSLETTERS: readonly Newsletter[] = [
  {
    sender: { name: 'Weekly Digest', address: 'digest@news.example.com' },
    listId: 'weekly.news.example.com',
    listName: 'Weekly Digest',
    https: true,
    oneClick: true,
    topics: ['This week in tech', 'Your weekly roundup', 'Top stories'],
  },
  {
    sender: { name: 'Café Bulletin ☕', address: 'bonjour@cafe.example.fr' },
    listId: 'bulletin.cafe.example.fr',
    listName: 'Café Bulletin',
    https: true,
    oneClick: true,
    topics: ['Nouveautés de la semaine', 'Soirée dégustation', 'Menu d’été'],
  },
  {
    sender: { name: 'Shop Deals', address: 'deals@shop.example' },
    listId: 'deals.shop.example',
    listName: 'Shop Deals',
    https: true,
    oneClick: false,
    topics: ['48h flash sale', '20% off everything', 'Back in stock'],
  },
  {
    sender: { name: 'Old School List', address: 'owner-announce@lists.example.edu' },
    listId: 'announce.lists.example.edu',
    listName: 'Announce',
    https: false,
    oneClick: false,
    topics: ['[announce] Release 2.3', '[announce] Maintenance window'],
  },
  {
    sender: { name: 'Techブログ', address: 'news@blog.example.jp' },
    listId: 'news.blog.example.jp',
    listName: 'Tech Blog JP',
    https: true,
    oneClick: true,
    topics: ['今週の記事まとめ', '新機能のお知らせ'],
  },
];

export const PERSONAL_SUBJECTS: readonly string[] = [
  'Lunch tomorrow?',
  'Quarterly report — draft',
  'Résumé review',
  'Café meeting notes',
  'Übersicht der Änderungen',
  '日本語の件名テスト',
  'Trip photos 📷',
  'Can you review the contract?',
  'Invoice question',
  'Zoom link for Thursday',
  'Crème brûlée recipe 🍮',
  'Re-planning the offsite',
];

export const PARAGRAPHS: readonly string[] = [
  'Thanks for the quick turnaround on this.',
  'Could you take a look before Friday? No rush otherwise.',
  'Voilà the notes from the café — I added a few remarks.',
  'Die Übersicht ist jetzt vollständig. Grüße aus München!',
  'よろしくお願いします。来週また連絡します。',
  'Let me know if anything is unclear 🙂',
  'Attached is the latest version; the numbers changed slightly.',
  'I think we should move the meeting to next week.',
];

export const ATTACHMENT_NAMES = {
  png: (i: number): string => `chart-${i}.png`,
  pdf: (i: number): string => `Rechnung_März_${i}.pdf`,
  csv: (i: number): string => `report-${i}.csv`,
};

/** Legacy-charset messages: text that fits each charset exactly. */
export const LEGACY = {
  latin1: { subject: 'Voilà: café crème à 3 EUR?', body: 'Voilà, le café est prêt.\nÇa va? À bientôt, Zoë' },
  cp1252: {
    subject: 'Invoice €42 – “final” version',
    body: 'Please find the “final” figures below – total €42.\n‘Quoted’ … done.',
  },
  iso2022jp: {
    subject: '会議の議事録について',
    body: '来週の会議について確認します。\nよろしくお願いします。',
  },
} as const;
