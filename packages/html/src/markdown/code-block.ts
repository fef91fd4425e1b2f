import type { AnyNode, Element } from 'domhandler';

const LANGUAGE_CLASS = /(?:^|\s)(?:language|lang|highlight-source|brush:?)-?\s*([\w+#.-]+)/i;

/** Language of a code block from `language-x`, `lang-x`, `highlight-source-x` classes or `data-lang`. */
export function detectLanguage(pre: Element): string {
  const code = pre.children.find((c): c is Element => c.type === 'tag' && c.name === 'code');
  const candidates = [code, pre, pre.parent?.type === 'tag' ? pre.parent : undefined];
  for (const el of candidates) {
    if (el === undefined) continue;
    const attr = el.attribs['data-lang'] ?? el.attribs['data-language'];
    if (attr !== undefined && /^[\w+#.-]+$/.test(attr)) return attr;
    const cls = el.attribs.class;
    if (cls === undefined) continue;
    const m = LANGUAGE_CLASS.exec(cls);
    if (m?.[1] !== undefined) return m[1];
  }
  return '';
}

/** Raw text of a subtree, as a `<pre>` shows it: text nodes verbatim, `<br>` as a newline. Iterative. */
export function preformattedText(root: Element): string {
  let out = '';
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (node.type === 'text') out += node.data;
    else if (node.type === 'tag') {
      if (node.name === 'br') out += '\n';
      else for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
    }
  }
  return out;
}

/** Text of a `<pre>` without its first newline (browsers drop it; htmlparser2 keeps it) and trailing space. */
export function codeBlockText(pre: Element): string {
  const code = preformattedText(pre);
  const first = pre.children[0];
  if (first?.type !== 'text') return code.trimEnd();
  if (code.charCodeAt(0) === 10) return code.slice(1).trimEnd();
  if (code.startsWith('\r\n')) return code.slice(2).trimEnd();
  return code.trimEnd();
}

/** Fenced code block (fence longer than any fence-like run inside the code); '' for blank code. */
export function renderCodeBlock(code: string, language: string): string {
  if (code.trim() === '') return '';
  let fenceSize = 3;
  if (code.includes('```')) {
    for (const m of code.matchAll(/^\s*(`{3,})/gm)) fenceSize = Math.max(fenceSize, (m[1] ?? '').length + 1);
  }
  const fence = '`'.repeat(fenceSize);
  return `\n\n${fence}${language}\n${code}\n${fence}\n\n`;
}

/** Inline code span with a backtick fence that does not occur in the content (CommonMark rules). */
export function renderInlineCode(content: string): string {
  if (content === '') return '';
  const text = content.replace(/\r?\n|\r/g, ' ');
  let delimiter = '`';
  if (text.includes('`')) {
    const runs = new Set((text.match(/`+/g) ?? []).map((r) => r.length));
    let n = 1;
    while (runs.has(n)) n++;
    delimiter = '`'.repeat(n);
  }
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  // 96 is '`', 32 is ' ': pad when the span starts/ends with a backtick, or is space-wrapped non-blank text.
  const pad = first === 96 || last === 96 || (first === 32 && last === 32 && text.trim() !== '') ? ' ' : '';
  return delimiter + pad + text + pad + delimiter;
}
