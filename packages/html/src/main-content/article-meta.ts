import type { AnyNode, Element } from 'domhandler';
import { isElement, isText, textContent } from '../dom/dom-helpers.js';
import type { ScoredTree } from './score-tree.js';

/**
 * Lines about the article rather than of it: bylines with dates, "posted in" / category / tag lines,
 * reading times, update stamps, comment-policy and login notices, newsletter and "have a tip?" pitches,
 * advertising labels. Matched on the start of a short block's whole text, in several languages.
 */
const META_LINE = new RegExp(
  '^(?:' +
    [
      // publication stamps and taxonomy
      'this (?:entry|post|article) was (?:posted|published|filed)', 'posted (?:on|in|by|at)\\b', 'filed (?:under|in)\\b',
      'last (?:modified|updated|edited)\\b', 'published (?:on|at)?\\s*[:\\d]', 'updated (?:on|at)?\\s*[:\\d]',
      'categor(?:y|ies)\\s*:', 'tags?\\s*:', 'topics?\\s*:', 'release date\\s*:',
      'erstellt am\\b', 'veröffentlicht am\\b', 'aktualisiert(?: am)?\\s*[:\\d]', 'zuletzt (?:aktualisiert|geändert|bearbeitet)\\b',
      'der beitrag wurde am\\b', 'dieser (?:beitrag|eintrag|artikel) wurde (?:am|unter|in)\\b', 'kategorien?\\s*:', 'schlagw(?:ö|o)rte?r?\\s*:', 'themen\\s*:',
      'publié le\\b', 'mis à jour le\\b', 'catégories?\\s*:', 'opublikowano\\b', 'aktualizacja\\s*:', 'kategori[ae]\\s*:',
      'publicado (?:el|en)\\b', 'actualizado (?:el|a las)\\b', 'categorías?\\s*:', 'etiquetas\\s*:',
      '\\d+\\s*min(?:ute)?s?\\.? read\\b', 'lesezeit\\s*:?\\s*\\d', 'temps de lecture\\b', 'czas czytania\\b',
      // notices and pitches
      'have a (?:news )?tip\\b', 'got a (?:news )?tip\\b', 'sign up for (?:our|the)\\b.*newsletter', 'subscribe (?:now )?to (?:our|the)\\b',
      'abonnieren sie (?:jetzt )?unsere?n?\\b', 'melden sie sich (?:jetzt )?für (?:unseren|den) newsletter', 'zum newsletter\\b',
      'you must be logged in to\\b', 'sie müssen (?:sich )?(?:angemeldet|eingeloggt|einloggen)', 'bitte (?:melden sie sich an|registrieren sie sich)',
      'comments? (?:are|is) (?:closed|moderated)\\b', 'kommentare sind (?:geschlossen|deaktiviert)', 'die kommentarfunktion\\b',
      'gefällt mir\\b', 'like this:', 'wird geladen', 'share this:', 'teilen mit:', 'diesen (?:beitrag|artikel) teilen',
      'categor(?:y|ies)\\s+:', 'tags?\\s+:', 'for the latest (?:stories|news|updates)\\b', 'follow (?:us|the \\w+) on\\b', 'submit your letter\\b',
      'we want to hear (?:from you|what you think)', 'do you want to be informed\\b', 'if you enjoyed (?:reading )?this\\b', 'never miss (?:the|a)\\b',
      'this (?:post|article) contains (?:references|affiliate)', 'advertising disclosure', 'to view the full story\\b', 'want more stories like this',
      'anzeige,? enthält', '\\*?werbung[.:]', 'alle angaben ohne gewähr', 'externer inhalt', 'quellen (?:ausblenden|anzeigen)', 'rezept drucken', 'bild anzeigen',
      'unterstütze (?:uns|unsere)\\b', 'gefällt (?:dir|ihnen) unser', 'lust auf mehr\\b', 'jetzt (?:abonnieren|newsletter)',
      'mire:', '¿ya sabías', '¡mira lo que', 'hazte (?:miembro|socio)', 'suscríbete\\b', 'zapraszamy (?:też )?do subskrypcji', 'materiał chroniony prawem', 'czytasz właśnie',
      'sie sind (?:aktuell |derzeit )?nicht (?:eingeloggt|angemeldet)', 'you are not logged in', 'wir respektieren (?:deine|ihre) privatsphäre', 'we respect your privacy',
      'zum vergrößern\\b', '(?:click|tap) (?:to|here to) enlarge', 'zurück zur (?:übersicht|listenansicht|startseite)', 'back to (?:top|overview|the list)\\b', 'video verfügbar bis\\b',
      '\\(?noch keine bewertungen', 'war (?:der|dieser) (?:artikel|beitrag) (?:nützlich|hilfreich)', 'möchten sie (?:den|diesen) (?:artikel|beitrag) teilen', 'was this (?:article|page|post) helpful',
      'if you(?:’|\')re (?:seeing this|already a subscriber)\\b', '(?:dieses?|den) \\p{L}+ als pdf herunterladen',
      'advertisement\\s*:?$', 'anzeige\\s*:?$', '- ?anzeige ?-$', 'werbung\\s*:?$', 'reklama\\s*:?$', 'publicidad\\s*:?$',
    ].join('|') +
    ')',
  'iu',
);

/** A line that is only a date (with a weekday, a time): "03.04.2020", "11 Jan 2019", "5. Februar 2020, 10:30 Uhr". */
const DATE_LINE =
  /^(?:[\p{L}]+,?\s+)?(?:\d{1,2}\.?\s*(?:\d{1,2}\.|\p{L}{3,}\.?)\s*\d{4}|\p{L}{3,}\.?\s+\d{1,2},?\s+\d{4}|\d{4}-\d{2}-\d{2})(?:,?\s*(?:um\s*)?\d{1,2}[:.]\d{2}(?:\s*(?:uhr|am|pm|h))?)?$/iu;

/** A meta line longer than this (characters) is text of the article that happens to start alike. */
const MAX_META_TEXT = 160;

/** Elements that hold one line of meta; inline elements are judged by their block. */
const LINE_TAGS: ReadonlySet<string> = new Set(['p', 'div', 'span', 'small', 'time', 'li', 'dd', 'dt', 'h6', 'h5', 'h4', 'h3', 'em', 'i', 'strong', 'b']);

/**
 * True when element `j` is a short line of article meta (see META_LINE) that is not the whole of its
 * parent's text only when the parent is larger than it (a byline of a teaser card goes with the card).
 */
export function isMetaLine(tree: ScoredTree, j: number): boolean {
  const t = tree.text[j] as number;
  if (t === 0 || t > MAX_META_TEXT) return false;
  const el = tree.elements[j] as Element;
  if (!LINE_TAGS.has(el.name)) return false;
  // A wrapper's only child has the same line: the wrapper was judged already.
  const p = tree.parent[j] as number;
  if (p >= 0 && tree.text[p] === t && LINE_TAGS.has((tree.elements[p] as Element).name)) return false;
  if (!standsAlone(el)) return false;
  const line = lineOf(el);
  return META_LINE.test(line) || (t <= 40 && DATE_LINE.test(line));
}

/** The text of `el` with whitespace runs as one space, trimmed (cheaper than the block-aware rendering). */
function lineOf(el: Element): string {
  return textContent(el).replace(/\s+/g, ' ').trim();
}

/** True when a text node below `el` holds an ASCII digit. */
function hasDigit(el: Element): boolean {
  const stack: AnyNode[] = [el];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (isText(node)) {
      if (DIGIT.test(node.data)) return true;
    } else if ('children' in node) {
      for (const c of node.children) stack.push(c);
    }
  }
  return false;
}
const DIGIT = /\d/;

/** True when no text stands right beside `el`: it is a line of its own, not words of a sentence. */
function standsAlone(el: Element): boolean {
  for (const n of [el.prev, el.next]) if (n !== null && isText(n) && /\S/.test(n.data)) return false;
  return true;
}

/** "3/50", "3 of 50", "3 von 50", "3 de 50", "3 sur 50", "3 z 50": the counter of a slideshow slide. */
const SLIDE_COUNTER = /^\s*(\d{1,3})\s*(?:\/|of|von|de|sur|z|di)\s*(\d{1,3})\b/i;

/** A slideshow needs this many numbered slides. */
const MIN_SLIDES = 3;

/**
 * True when element `j` is the caption list of a slideshow: at least MIN_SLIDES children whose text
 * starts with a slide counter ("1/50 ...") of the same total, holding most of the children. Galleries
 * repeat picture captions that a reader's copy of the article leaves out.
 */
function isSlideshow(tree: ScoredTree, j: number): boolean {
  const end = j + (tree.size[j] as number);
  // Cheap first: fewer than MIN_SLIDES children with text cannot be a slideshow (and a deep chain of
  // single children must not walk its whole depth from every level).
  let withText = 0;
  for (let c = j + 1; c < end && withText < MIN_SLIDES; c += tree.size[c] as number) if ((tree.text[c] as number) > 0) withText++;
  if (withText < MIN_SLIDES) return false;
  let children = 0;
  let slides = 0;
  let total = '';
  for (let c = j + 1; c < end; c += tree.size[c] as number) {
    if ((tree.text[c] as number) === 0) continue;
    children++;
    // Slideshows number every slide: three items without a counter end the search.
    if (children > MIN_SLIDES && slides === 0) return false;
    const m = SLIDE_COUNTER.exec(firstText(tree.elements[c] as Element));
    if (m === null || Number(m[1]) > Number(m[2])) continue;
    if (total === '') total = m[2] as string;
    if (m[2] === total) slides++;
  }
  return slides >= MIN_SLIDES && slides >= children * 0.6;
}

/** Nodes visited at most in search of a first text: a slide counter stands at the top of its slide. */
const FIRST_TEXT_STEPS = 64;

/** The first non-blank text node below `el` (up to 40 characters of it), within FIRST_TEXT_STEPS nodes. */
function firstText(el: Element): string {
  const stack: AnyNode[] = [];
  for (let i = el.children.length - 1; i >= 0; i--) stack.push(el.children[i] as AnyNode);
  for (let steps = 0; stack.length > 0 && steps < FIRST_TEXT_STEPS; steps++) {
    const n = stack.pop() as AnyNode;
    if (isText(n)) {
      if (/\S/.test(n.data)) return n.data.slice(0, 40);
    } else if (isElement(n)) {
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as AnyNode);
    }
  }
  return '';
}

/** Slideshows are discounted only when the rest of the page has this much prose relative to them. */
const MIN_OWN_PROSE = 0.25;

/**
 * Finds slideshow caption lists (see isSlideshow), takes their scores out of their ancestors (a
 * gallery of fifty captions outweighs the article it illustrates) and marks them in `marks` for
 * removal. A page that is only a slideshow keeps it.
 */
export function discountSlideshows(tree: ScoredTree, marks: Uint8Array): void {
  const n = tree.elements.length;
  const found: number[] = [];
  for (let i = 0; i < n; i++) {
    if ((tree.size[i] as number) < 4 || marks[i] === 1 || !isSlideshow(tree, i)) continue;
    found.push(i);
    i += (tree.size[i] as number) - 1;
  }
  applyDiscount(tree, marks, found);
}

/**
 * Relative time stamps of ticker items: "3 minutes ago", "vor 2 Stunden", "il y a 5 min", "hace 1 hora",
 * "před 3 minutami", "2 godziny temu".
 */
const RELATIVE_TIME =
  /^(?:\d+\s*(?:min(?:ute)?s?|hours?|hrs?|days?)\.?\s+ago|vor\s+\d+\s*(?:min(?:uten?)?|stunden?|std\.?|tagen?)|il y a\s+\d+\s*(?:min(?:utes?)?|heures?|h|jours?)|hace\s+\d+\s*(?:min(?:utos?)?|horas?|días?)|před\s+\d+\s*(?:minut(?:ou|ami)?|hodin(?:ou|ami)?|dny|dnem)|\d+\s*(?:min(?:ut[ęy]?)?|godzin[ęy]?|dni)\s+temu|há\s+\d+\s*(?:min(?:utos?)?|horas?|dias?))$/i;

/** A ticker needs this many time-stamped items. */
const MIN_TICKER_ITEMS = 3;

/** Ancestors searched above a time stamp for the ticker that holds it. */
const TICKER_LEVELS = 6;

/**
 * Finds tickers (news streams whose items carry relative time stamps: "před 3 minutami", "vor 5
 * Minuten") and, like slideshows, takes them out of the scores and marks them for removal. A ticker
 * is the lowest element with time-stamped items in at least MIN_TICKER_ITEMS different children. A
 * page that is only a ticker (a live blog) keeps it.
 */
export function discountTickers(tree: ScoredTree, marks: Uint8Array): void {
  const n = tree.elements.length;
  // For each ancestor: the distinct children through which time stamps were reached.
  const branches = new Map<number, Set<number>>();
  for (let i = 0; i < n; i++) {
    const t = tree.text[i] as number;
    if (t === 0 || t > 40 || (tree.size[i] as number) > 3) continue;
    // Every relative time stamp has a digit: most short elements are ruled out without their text.
    const el = tree.elements[i] as Element;
    if (!hasDigit(el) || !RELATIVE_TIME.test(lineOf(el))) continue;
    let child = i;
    for (let a = tree.parent[i] as number, up = 0; a >= 0 && up < TICKER_LEVELS; a = tree.parent[a] as number, up++) {
      let set = branches.get(a);
      if (set === undefined) branches.set(a, (set = new Set()));
      set.add(child);
      child = a;
    }
  }
  const found: number[] = [];
  for (const [a, set] of branches) {
    if (set.size < MIN_TICKER_ITEMS) continue;
    // The lowest such ancestor: skip one that contains another ticker already found below it.
    found.push(a);
  }
  found.sort((x, y) => x - y);
  const lowest: number[] = [];
  for (let k = 0; k < found.length; k++) {
    const a = found[k] as number;
    const next = found[k + 1];
    if (next !== undefined && next < a + (tree.size[a] as number)) continue;
    lowest.push(a);
  }
  applyDiscount(tree, marks, lowest);
}

/** Takes the scores of `found` out of their ancestors and marks them, unless they are the page. */
function applyDiscount(tree: ScoredTree, marks: Uint8Array, found: readonly number[]): void {
  if (found.length === 0) return;
  let showPositive = 0;
  for (const i of found) showPositive += tree.positive[i] as number;
  let pagePositive = 0;
  for (let i = 0; i < tree.elements.length; i++) if (tree.parent[i] === -1) pagePositive += tree.positive[i] as number;
  if (pagePositive - showPositive < showPositive * MIN_OWN_PROSE) return;
  for (const i of found) {
    marks[i] = 1;
    const dScore = -(tree.score[i] as number);
    const dPositive = -(tree.positive[i] as number);
    for (let a = i; a >= 0; a = tree.parent[a] as number) {
      tree.score[a] = (tree.score[a] as number) + dScore;
      tree.positive[a] = (tree.positive[a] as number) + dPositive;
    }
  }
}
