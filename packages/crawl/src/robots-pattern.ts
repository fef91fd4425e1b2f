import { encodeForComparison } from './percent-encoding.js';

/** One Allow/Disallow rule of a robots.txt group, ready to match. */
export interface RobotsRule {
  allow: boolean;
  /** Normalised pattern without a trailing `$`; `*` matches any run of characters. */
  pattern: string;
  /** The pattern ends with `$`: it must match the whole path, not just a prefix. */
  anchored: boolean;
  /** Specificity (RFC 9309 section 2.2.2: the longest match wins): length of the normalised pattern. */
  length: number;
}

/**
 * Builds a rule from an Allow/Disallow value. Null for an empty value (an empty Disallow allows
 * everything, which is also what no rule does). A value that starts with neither `/` nor `*`
 * (`Disallow: 404.html`) cannot match any path as written; it is read as relative to the root, the
 * evident intent.
 */
export function robotsRule(allow: boolean, value: string): RobotsRule | null {
  if (value === '') return null;
  let raw = value.startsWith('/') || value.startsWith('*') ? value : `/${value}`;
  const anchored = raw.endsWith('$');
  if (anchored) raw = raw.slice(0, -1);
  // Runs of `*` match the same thing as one `*`; collapsing them keeps matching linear in practice.
  const pattern = encodeForComparison(raw).replace(/\*+/g, '*');
  return { allow, pattern, anchored, length: pattern.length + (anchored ? 1 : 0) };
}

/**
 * True when `rule` matches `path` (normalised with the same `encodeForComparison` as the pattern):
 * a prefix match, or a whole match for anchored rules. Iterative wildcard matching with one backtrack
 * point: O(path x pattern) in the worst case, never exponential, whatever the robots.txt holds.
 */
export function matchesRobotsRule(rule: RobotsRule, path: string): boolean {
  const p = rule.pattern;
  if (!p.includes('*')) return rule.anchored ? path === p : path.startsWith(p);
  const pattern = rule.anchored ? p : `${p}*`;
  let i = 0;
  let j = 0;
  let star = -1;
  let mark = 0;
  while (j < path.length) {
    if (i < pattern.length && pattern[i] !== '*' && pattern[i] === path[j]) {
      i++;
      j++;
    } else if (i < pattern.length && pattern[i] === '*') {
      star = i++;
      mark = j;
    } else if (star >= 0) {
      i = star + 1;
      j = ++mark;
    } else {
      return false;
    }
  }
  while (i < pattern.length && pattern[i] === '*') i++;
  return i === pattern.length;
}
