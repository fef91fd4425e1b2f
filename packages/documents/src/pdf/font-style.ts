/** Bold, italic and monospace from a font's PostScript name or family ("Arial-BoldMT", "Calibri,Italic"). */
export interface FontStyle {
  bold: boolean;
  italic: boolean;
}

// "Medi" is how URW's Times clone (NimbusRomNo9L-Medi) names its bold; "Bd" and "BdIt" are common abbreviations.
const BOLD = /bold|black|heavy|semibold|demibold|demi\b|extrabold|ultrabold|[-,_ ]bd(it)?\b|[-,_ ]medi(it|ital)?\b|[-,_ ]sb\b|\bw[6-9]\b/i;
const ITALIC = /italic|oblique|[-,_ ]it\b|[-,_ ](bd|bold|medi|semibold|demi|black|light|regular)?it\b|[-,_ ]ital\b|(medi|bd|bold|demi)ital\b|kursiv|slanted/i;

const NONE: FontStyle = { bold: false, italic: false };
/** Names seen: a document has a handful of fonts and thousands of text items. Bounded. */
const cache = new Map<string, FontStyle>();

/** Reads bold and italic from a font name; the subset prefix ("ABCDEF+") is ignored. */
export function fontStyle(name: string | undefined): FontStyle {
  if (!name) return NONE;
  let style = cache.get(name);
  if (!style) {
    const base = name.replace(/^[A-Z]{6}\+/, '');
    style = { bold: BOLD.test(base), italic: ITALIC.test(base) };
    if (cache.size < 1000) cache.set(name, style);
  }
  return style;
}
