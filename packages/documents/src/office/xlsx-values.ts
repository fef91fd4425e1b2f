/**
 * Cell values as Excel shows them, without a formatting engine: dates (built-in and custom formats
 * with date/time tokens) as ISO 8601, percentages, and numbers without binary noise.
 */

/** Built-in number formats that are dates or times (14-22; 45-47 times; 27-36 and 50-58 East Asian dates). */
const BUILTIN_DATE_IDS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]);
const BUILTIN_TIME_ONLY = new Set([18, 19, 20, 21, 45, 46, 47]);
const BUILTIN_PERCENT = new Set([9, 10]);

/** How a number format displays a value. */
export type ValueKind = 'number' | 'percent' | 'date' | 'datetime' | 'time';

/** The display kind of a number format (id, and custom code when the workbook defines one). */
export function valueKind(numFmtId: number, formatCode: string | undefined): ValueKind {
  if (formatCode === undefined) {
    if (BUILTIN_TIME_ONLY.has(numFmtId)) return 'time';
    if (numFmtId === 22) return 'datetime';
    if (BUILTIN_DATE_IDS.has(numFmtId)) return 'date';
    return BUILTIN_PERCENT.has(numFmtId) ? 'percent' : 'number';
  }
  // Literal text ("..."), escaped characters, fill/padding and [colour]/[$-locale] sections say nothing of the kind.
  const bare = (formatCode.split(';')[0] ?? '').replace(/"[^"]*"|\\.|[_*]./g, '').replace(/\[(?![hms]+\])[^\]]*\]/gi, '');
  const hasDate = /[yd]/i.test(bare) || (/m/i.test(bare) && !/[hs]/i.test(bare));
  const hasTime = /[hs]/i.test(bare);
  if (hasDate && hasTime) return 'datetime';
  if (hasDate) return 'date';
  if (hasTime) return 'time';
  return bare.includes('%') ? 'percent' : 'number';
}

/** 1899-12-30: day 0 of the 1900 date system once its fictitious 1900-02-29 is accounted for. */
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

/** An Excel serial date as ISO 8601 (`2024-01-01`, `2024-01-01T12:00:00`, `12:00:00`). */
export function serialToIso(serial: number, kind: 'date' | 'datetime' | 'time', date1904: boolean): string | undefined {
  if (!Number.isFinite(serial) || serial < 0 || serial > 2_958_465) return undefined;
  // Serials before 1900-03-01 sit before Excel's phantom leap day: one day later than the arithmetic says.
  const day = !date1904 && serial < 61 ? serial + 1 : serial;
  const ms = Math.round(day * 86_400) * 1000 + (date1904 ? EPOCH_1904 : EPOCH_1900);
  const iso = new Date(ms).toISOString();
  if (kind === 'time') return iso.slice(11, 19);
  if (kind === 'date') return iso.slice(0, 10);
  return iso.slice(0, 19);
}

/** A stored number as text: `0.30000000000000004` reads `0.3`, as Excel shows it (15 significant digits). */
export function formatNumber(raw: string): string {
  if (/^-?\d{1,15}$/.test(raw)) return raw;
  const n = Number(raw);
  if (!Number.isFinite(n)) return raw;
  return String(Number(n.toPrecision(15)));
}

/** A number in a format's kind. */
export function displayValue(raw: string, kind: ValueKind, date1904: boolean): string {
  if (kind === 'number') return formatNumber(raw);
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n)) return raw;
  if (kind === 'percent') return `${formatNumber(String(n * 100))}%`;
  return serialToIso(n, kind, date1904) ?? formatNumber(raw);
}

/** Decodes the `_xHHHH_` escapes of OOXML strings (control characters, literal underscores as `_x005F_`). */
export function decodeOoxmlEscapes(s: string): string {
  if (!s.includes('_x')) return s;
  return s.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
