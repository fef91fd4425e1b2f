import { TrawlError, type Action } from '@trawl/api-schema';
import type { Page } from 'playwright-core';
import { capturePage } from './page-capture.js';
import { abortableDelay, waitForQuiet, type NetworkTracker } from './smart-wait.js';

/** A binary produced in the browser (screenshot, PDF), stored as a blob by the worker. */
export interface BrowserBinary {
  data: Buffer;
  contentType: 'image/png' | 'image/jpeg' | 'application/pdf';
}

/** What the actions produced, each list in the order of its actions (the spec's `data.actions`). */
export interface ActionOutputs {
  screenshots: BrowserBinary[];
  scrapes: Array<{ url: string; html: string }>;
  javascriptReturns: Array<{ type: string; value: unknown }>;
  pdfs: BrowserBinary[];
}

/** Time a click waits for its selector to appear, ms (bounded by the job's deadline). */
const CLICK_WAIT_MS = 5000;
/** Settling after an action that may load content (click, press, scroll), ms. */
const SETTLE_MS = 1500;

export interface ActionRunContext {
  page: Page;
  network: NetworkTracker;
  signal: AbortSignal;
  /** ms left before the job's deadline. */
  remaining: () => number;
  /** Largest `executeJavascript` return (as JSON), bytes. */
  maxReturnBytes: number;
  /** Largest screenshot, PDF or `scrape` HTML an action may produce, bytes. */
  maxOutputBytes: number;
}

function actionError(index: number, action: Action, message: string, cause?: unknown): TrawlError {
  return new TrawlError('SCRAPE_ACTION_FAILED', `Action ${index} (${action.type}) failed: ${message}`, {
    details: { index, type: action.type },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Screenshot of the page: JPEG when a quality is given (PNG has none), PNG otherwise. */
export async function takeScreenshot(
  page: Page,
  opts: { fullPage: boolean; quality?: number | undefined; viewport?: { width: number; height: number } | undefined; timeoutMs: number },
): Promise<BrowserBinary> {
  const previous = page.viewportSize();
  if (opts.viewport) await page.setViewportSize(opts.viewport);
  try {
    const jpeg = opts.quality !== undefined;
    const data = await page.screenshot({
      fullPage: opts.fullPage,
      type: jpeg ? 'jpeg' : 'png',
      ...(jpeg ? { quality: opts.quality } : {}),
      timeout: Math.max(1000, opts.timeoutMs),
      animations: 'disabled',
    });
    return { data, contentType: jpeg ? 'image/jpeg' : 'image/png' };
  } finally {
    if (opts.viewport && previous) await page.setViewportSize(previous);
  }
}

/**
 * Page-side serializer of an `executeJavascript` result (`v`): JSON, with a reference back to an
 * ancestor written as `"[Circular]"` (a shared, non-cyclic reference is written out each time) and
 * BigInts as strings. It counts what it writes and stops as soon as the result passes `limit`
 * characters, so a 150 MiB string is never copied, never crosses the debugger protocol and never
 * reaches the worker. Self-contained page-side source (no closures over Node).
 */
function serializeInPage(limit: number): string {
  return `((v) => {
    const type = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
    const over = {};
    const ancestors = [];
    let size = 0;
    const replacer = function (key, value) {
      if (typeof value === 'bigint') value = value.toString();
      if (typeof value === 'object' && value !== null) {
        while (ancestors.length && ancestors[ancestors.length - 1] !== this) ancestors.pop();
        if (ancestors.includes(value)) return '[Circular]';
        ancestors.push(value);
      }
      size += key.length + (typeof value === 'string' ? value.length : 8);
      if (size > ${limit}) throw over;
      return value;
    };
    let json;
    try { json = JSON.stringify(v === undefined ? null : v, replacer); }
    catch (e) { if (e === over) return { type, tooLarge: true }; throw e; }
    if (json !== undefined && json.length > ${limit}) return { type, tooLarge: true };
    return { type, json: json === undefined ? 'null' : json };
  })`;
}

type SerializedReturn = { type: string; json?: string; tooLarge?: boolean };

/**
 * Runs `script` in the page and reports `{type, value}`. A single expression returns its value; a
 * statement list returns what its `return` says. Runs through the debugger protocol, so a page's
 * Content-Security-Policy cannot forbid it. The value is serialized in the page (cycles written as
 * `"[Circular]"`) and refused past `maxBytes`.
 */
async function executeJavascript(page: Page, script: string, maxBytes: number, index: number): Promise<{ type: string; value: unknown }> {
  const serialize = serializeInPage(maxBytes);
  const asExpression = `(async () => (\n${script}\n))().then(${serialize})`;
  const asBody = `(async () => {\n${script}\n})().then(${serialize})`;
  let out: SerializedReturn | undefined;
  try {
    out = await page.evaluate<SerializedReturn>(asExpression);
  } catch (err) {
    if (!/SyntaxError/.test(String((err as Error).message))) throw err;
  }
  out ??= await page.evaluate<SerializedReturn>(asBody);
  // Characters were counted in the page; UTF-8 may take up to three bytes for one.
  if (out.tooLarge || out.json === undefined || Buffer.byteLength(out.json) > maxBytes) {
    throw tooLarge(index, 'executeJavascript', maxBytes);
  }
  return { type: out.type, value: JSON.parse(out.json) as unknown };
}

function tooLarge(index: number, type: Action['type'], limitBytes: number): TrawlError {
  return new TrawlError('SCRAPE_ACTION_RESULT_TOO_LARGE', `Action ${index} (${type}) produced more than ${limitBytes} bytes`, {
    details: { index, type, limitBytes },
  });
}

/** An action's binary (screenshot, PDF), refused past the limit. */
function capped(binary: BrowserBinary, index: number, type: Action['type'], limitBytes: number): BrowserBinary {
  if (binary.data.length > limitBytes) throw tooLarge(index, type, limitBytes);
  return binary;
}

async function scrapeAction(ctx: ActionRunContext, index: number): Promise<{ url: string; html: string }> {
  const captured = await capturePage(ctx.page, { maxBytes: ctx.maxOutputBytes });
  if (captured.html === undefined) throw tooLarge(index, 'scrape', ctx.maxOutputBytes);
  return { url: captured.url, html: captured.html };
}

async function settle(ctx: ActionRunContext): Promise<void> {
  await waitForQuiet(ctx.page, ctx.network, {
    budgetMs: Math.min(SETTLE_MS, Math.max(0, ctx.remaining() - 500)),
    networkQuietMs: 250,
    domQuietMs: 150,
    signal: ctx.signal,
  });
}

async function click(ctx: ActionRunContext, selector: string, all: boolean, index: number, action: Action): Promise<void> {
  const locator = ctx.page.locator(selector);
  if (all) {
    const count = await locator.count();
    for (let i = 0; i < count; i += 1) {
      await locator.nth(i).click({ timeout: Math.max(1000, Math.min(CLICK_WAIT_MS, ctx.remaining())) }).catch(() => undefined);
    }
    return;
  }
  try {
    await locator.first().waitFor({ state: 'attached', timeout: Math.max(1, Math.min(CLICK_WAIT_MS, ctx.remaining())) });
  } catch (err) {
    ctx.signal.throwIfAborted();
    throw new TrawlError('SCRAPE_ACTION_ELEMENT_NOT_FOUND', `Action ${index} (click): no element matches the selector ${JSON.stringify(selector)}`, {
      details: { index, type: action.type, selector },
      cause: err,
    });
  }
  await locator.first().click({ timeout: Math.max(1000, Math.min(CLICK_WAIT_MS, ctx.remaining())) });
}

/**
 * Runs the actions in order. Waits obey the job's deadline (the API already capped their total);
 * a failing action stops the scrape with a code naming its index.
 */
export async function runActions(actions: readonly Action[], ctx: ActionRunContext): Promise<ActionOutputs> {
  const out: ActionOutputs = { screenshots: [], scrapes: [], javascriptReturns: [], pdfs: [] };
  for (const [index, action] of actions.entries()) {
    ctx.signal.throwIfAborted();
    try {
      switch (action.type) {
        case 'wait':
          if (action.milliseconds !== undefined) await abortableDelay(Math.min(action.milliseconds, ctx.remaining()), ctx.signal);
          else if (action.selector !== undefined) await ctx.page.waitForSelector(action.selector, { state: 'attached', timeout: Math.max(1, ctx.remaining()) });
          break;
        case 'click':
          await click(ctx, action.selector, action.all, index, action);
          await settle(ctx);
          break;
        case 'write':
          await ctx.page.keyboard.type(action.text);
          break;
        case 'press':
          await ctx.page.keyboard.press(action.key);
          await settle(ctx);
          break;
        case 'scroll':
          await scroll(ctx.page, action.direction, action.selector);
          await settle(ctx);
          break;
        case 'screenshot':
          out.screenshots.push(capped(await takeScreenshot(ctx.page, { ...action, timeoutMs: ctx.remaining() }), index, action.type, ctx.maxOutputBytes));
          break;
        case 'scrape':
          out.scrapes.push(await scrapeAction(ctx, index));
          break;
        case 'executeJavascript':
          out.javascriptReturns.push(await executeJavascript(ctx.page, action.script, ctx.maxReturnBytes, index));
          break;
        case 'pdf':
          out.pdfs.push(capped({
            data: await ctx.page.pdf({ format: action.format, landscape: action.landscape, scale: action.scale, printBackground: true }),
            contentType: 'application/pdf',
          }, index, action.type, ctx.maxOutputBytes));
          break;
      }
    } catch (err) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (err instanceof TrawlError) throw err;
      if (ctx.remaining() <= 0) throw new TrawlError('SCRAPE_TIMEOUT', `The scrape timed out during action ${index} (${action.type})`);
      throw actionError(index, action, (err as Error).message.split('\n')[0] ?? 'unknown error', err);
    }
  }
  return out;
}

async function scroll(page: Page, direction: 'up' | 'down', selector: string | undefined): Promise<void> {
  const sign = direction === 'up' ? -1 : 1;
  if (selector === undefined) {
    await page.evaluate(`window.scrollBy(0, ${sign} * window.innerHeight)`);
    return;
  }
  const found = await page.evaluate<boolean>(
    `((sel, sign) => { const el = document.querySelector(sel); if (!el) return false; el.scrollBy(0, sign * (el.clientHeight || window.innerHeight)); return true; })(${JSON.stringify(selector)}, ${sign})`,
  );
  if (!found) throw new TrawlError('SCRAPE_ACTION_ELEMENT_NOT_FOUND', `scroll: no element matches the selector ${JSON.stringify(selector)}`, {
    details: { type: 'scroll', selector },
  });
}
