import { z } from 'zod';

/** Most actions one request may carry. */
export const MAX_ACTIONS = 50;

/** Most waiting one request may ask for: `waitFor` plus every wait action's `milliseconds`, in ms. */
export const MAX_TOTAL_WAIT_MS = 60000;

/** Paper sizes of the `pdf` action. */
export const PDF_ACTION_FORMATS = ['A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'Letter', 'Legal', 'Tabloid', 'Ledger'] as const;

/**
 * `wait`: exactly one of `milliseconds` (int >= 1) or `selector` (CSS; waits until it matches).
 * One object with a refinement rather than a union of two, so the message says what is wrong.
 */
const waitActionSchema = z
  .strictObject({
    type: z.literal('wait'),
    milliseconds: z.number().int().min(1).optional(),
    selector: z.string().min(1).optional(),
  })
  .superRefine((action, ctx) => {
    const forms = Number(action.milliseconds !== undefined) + Number(action.selector !== undefined);
    if (forms !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: 'A wait action takes exactly one of "milliseconds" or "selector"',
      });
    }
  })
  .meta({ description: 'Waits a number of milliseconds or until a CSS selector matches; exactly one of the two.' });

/** `screenshot`: `fullPage` (default false), `quality` 1..100, `viewport` {width, height}; URL in `actions.screenshots`. */
const screenshotActionSchema = z.strictObject({
  type: z.literal('screenshot'),
  fullPage: z.boolean().default(false),
  quality: z.number().int().min(1).max(100).optional(),
  viewport: z
    .strictObject({
      width: z.number().int().min(1).max(10000),
      height: z.number().int().min(1).max(10000),
    })
    .optional(),
});

/** `click`: `selector` (required), `all` (default false: click the first match only; no error when none). */
const clickActionSchema = z.strictObject({
  type: z.literal('click'),
  selector: z.string().min(1),
  all: z.boolean().default(false),
});

/** `write`: types `text` character by character into the focused element. */
const writeActionSchema = z.strictObject({ type: z.literal('write'), text: z.string() });

/** `press`: presses one key by name (e.g. `Enter`). */
const pressActionSchema = z.strictObject({ type: z.literal('press'), key: z.string().min(1) });

/** `scroll`: `direction` up|down (default down), optional `selector` of the element to scroll. */
const scrollActionSchema = z.strictObject({
  type: z.literal('scroll'),
  direction: z.enum(['up', 'down']).default('down'),
  selector: z.string().min(1).optional(),
});

/** `scrape`: captures the current page; result ({url, html}) in `actions.scrapes`. */
const scrapeActionSchema = z.strictObject({ type: z.literal('scrape') });

/** `executeJavascript`: runs `script` in the page; return value in `actions.javascriptReturns`. */
const executeJavascriptActionSchema = z.strictObject({
  type: z.literal('executeJavascript'),
  script: z.string().min(1),
});

/**
 * `pdf`: prints the page; `format` (default Letter), `landscape` (default false), `scale` (default 1,
 * 0.1..2: the range browsers accept). Result URL in `actions.pdfs`.
 */
const pdfActionSchema = z.strictObject({
  type: z.literal('pdf'),
  format: z.enum(PDF_ACTION_FORMATS).default('Letter'),
  landscape: z.boolean().default(false),
  scale: z.number().min(0.1).max(2).default(1),
});

/** One browser action, discriminated by `type`. */
export const actionSchema = z
  .discriminatedUnion('type', [
    waitActionSchema,
    screenshotActionSchema,
    clickActionSchema,
    writeActionSchema,
    pressActionSchema,
    scrollActionSchema,
    scrapeActionSchema,
    executeJavascriptActionSchema,
    pdfActionSchema,
  ])
  .meta({ id: 'Action' });

/** An action as sent by the client. */
export type ActionInput = z.input<typeof actionSchema>;
/** An action after parsing, defaults applied. */
export type Action = z.output<typeof actionSchema>;
/** Every action `type`. */
export type ActionType = Action['type'];

/** `actions`: at most {@link MAX_ACTIONS}, run in order before content is captured. */
export const actionListSchema = z
  .array(actionSchema)
  .max(MAX_ACTIONS, { error: `At most ${MAX_ACTIONS} actions are allowed` })
  .meta({ description: `Browser actions run before capture; at most ${MAX_ACTIONS}.` });

/** Sum of the `milliseconds` of every wait action (selector waits count 0). */
export function totalActionWaitMs(actions: readonly Action[] | undefined): number {
  let total = 0;
  for (const action of actions ?? []) {
    if (action.type === 'wait' && action.milliseconds !== undefined) total += action.milliseconds;
  }
  return total;
}
