import type { TestCluster } from './cluster.js';

export type Answer = Awaited<ReturnType<TestCluster['call']>>;

/** What the gateway answers while Redis leaves its PING unanswered. */
const STALLED = 'Redis is not answering; try again shortly';

/**
 * Freezes a Redis under the gateway (`freeze`) and sends a request (with `key`, default the test
 * cluster's) every 100 ms until one is turned away as stalled (503 "Redis is not answering"), or
 * until `boundMs` (default 15 s) have passed, when `resume` runs: an upper bound that only a gateway
 * without the stall check reaches, not a timing. Returns the refusal, the requests sent (each to be
 * awaited: none may be lost), and whether the bound resumed Redis. The caller resumes Redis otherwise.
 */
export async function freezeUntilRefused(cluster: TestCluster, opts: { freeze: () => void; resume: () => void; boundMs?: number; key?: string }): Promise<{
  refused: Answer | undefined; sent: Array<Promise<Answer>>; resumedByBound: boolean;
}> {
  opts.freeze();
  let resumedByBound = false;
  const bound = setTimeout(() => {
    resumedByBound = true;
    opts.resume();
  }, opts.boundMs ?? 15_000);
  const sent: Array<Promise<Answer>> = [];
  let refused: Answer | undefined;
  try {
    // The PING rides on these requests; those that need the frozen Redis wait.
    while (!resumedByBound && !refused) {
      const answer = cluster.call('GET', '/v2/concurrency-check', opts.key !== undefined ? { key: opts.key } : {});
      sent.push(answer);
      const first = await Promise.race([answer, new Promise<undefined>((r) => setTimeout(() => r(undefined), 100))]);
      if (first?.status === 503 && first.body.error === STALLED) refused = first;
    }
  } finally {
    clearTimeout(bound);
  }
  return { refused, sent, resumedByBound };
}
