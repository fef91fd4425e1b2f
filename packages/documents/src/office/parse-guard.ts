import { TrawlError } from '@trawl/api-schema';
import { abortError } from '@trawl/scrape-engine';
import type { ParseDocumentOptions } from '../types.js';

/** How many {@link ParseGuard.tick} calls pass between two real checks (a check reads the clock). */
const TICKS_PER_CHECK = 4096;

/**
 * The deadline and cancellation of one parse. Readers are synchronous loops over bytes and XML
 * events, so no timer can interrupt them: they call `tick()` in every loop and `check()` between parts.
 */
export class ParseGuard {
  #ticks = 0;

  constructor(private readonly options: Pick<ParseDocumentOptions, 'deadline' | 'signal' | 'now'>) {}

  /** Throws SCRAPE_TIMEOUT once past the deadline, or the signal's error once it fired. */
  check(): void {
    const { signal, deadline, now } = this.options;
    if (signal.aborted) throw abortError(signal);
    if ((now ?? Date.now)() > deadline) {
      throw new TrawlError('SCRAPE_TIMEOUT', 'The document was not read within the timeout.', { details: { step: 'document' } });
    }
  }

  /** Cheap per-iteration call: checks every few thousand ticks. */
  tick(): void {
    if (++this.#ticks % TICKS_PER_CHECK === 0) this.check();
  }
}
