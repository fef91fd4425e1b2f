import type { ChangeTracker } from '../change-tracking.js';
import type { DocumentTransformer } from './transformer.js';

/**
 * The `changeTracking` format: compares the page's markdown with the previous scrape of the URL (see
 * ChangeTracker). It reads the markdown whether or not the request returns it; runs last, after every
 * other format is in place.
 */
export function changeTrackingTransformer(changes: ChangeTracker): DocumentTransformer {
  return {
    name: 'changetracking',
    formats: ['changeTracking'],
    needs: 'nothing',
    converts: { markdown: true },
    credits: () => 0,
    async run({ job, request, converted }, document) {
      const result = await changes.track(job, request, { markdown: converted.markdown ?? '', statusCode: document.metadata.statusCode }, {
        hidden: job.crawl?.hidden === true,
      });
      if (result !== undefined) document.changeTracking = result;
    },
  };
}
