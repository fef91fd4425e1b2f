/** The preference list with each regional tag followed by its base language: `de-DE, de, en`. */
export function expandLanguages(languages: readonly string[]): string[] {
  const tags: string[] = [];
  for (const lang of languages) {
    if (!tags.includes(lang)) tags.push(lang);
    const base = lang.split('-')[0];
    if (base && base !== lang && !languages.includes(base) && !tags.includes(base)) tags.push(base);
  }
  return tags;
}

/** Accept-Language with decreasing q values: `de-DE,de;q=0.9,en;q=0.8`. */
export function acceptLanguageFor(languages: readonly string[]): string {
  const tags = expandLanguages(languages);
  return tags.map((t, i) => (i === 0 ? t : `${t};q=${Math.max(0.1, 1 - i * 0.1).toFixed(1)}`)).join(',');
}
