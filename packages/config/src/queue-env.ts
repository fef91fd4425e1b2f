import { envBoolean, envInt } from './env-fields.js';

/**
 * Queue environment read by both sides: the API admits scrapes and batch pages, the workers admit
 * crawl pages and hand jobs between engines, through the same admission and result store. A setting
 * here that only one side read would make the two sides disagree (the workers once admitted crawl
 * pages with the default backlog cap whatever `TRAWL_BACKLOG_CAP` said).
 */
export const queueEnv = {
  /** Waiting jobs a team may have: past it, requests get 429 and crawl pages wait in their crawl. Default 10000. */
  TRAWL_BACKLOG_CAP: envInt(10_000, { min: 1 }),
  /** How long finished scrape results can be fetched again, seconds. Default 86400. */
  TRAWL_RESULT_RETENTION_SEC: envInt(86_400, { min: 60 }),
  /**
   * Store results of 2 K characters of JSON and more compressed: about 2.2x less Redis a retained
   * result, for about 3-4% more CPU a scrape. Default false. Every process of this version reads both
   * forms; earlier versions read plain results only.
   */
  TRAWL_RESULT_COMPRESSION: envBoolean(false),
};
