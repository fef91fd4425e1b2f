/** Parsed command line: positional words and `--name value` / `--flag` options. */
export interface ParsedArgs {
  positional: string[];
  options: Record<string, string | true>;
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positional: string[] = [];
  const options: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--')) {
      const [name, inline] = a.slice(2).split('=', 2) as [string, string | undefined];
      const next = argv[i + 1];
      if (inline !== undefined) options[name] = inline;
      else if (next !== undefined && !next.startsWith('--')) {
        options[name] = next;
        i++;
      } else options[name] = true;
    } else positional.push(a);
  }
  return { positional, options };
}

/** A numeric option, or undefined; `null` for the word "unlimited" (credits). */
export function numberOption(v: string | true | undefined): number | null | undefined {
  if (v === undefined || v === true) return undefined;
  if (v === 'unlimited' || v === 'null') return null;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`not a number: ${v}`);
  return n;
}
