import type { ServerResponse } from 'node:http';

/**
 * For the protocol fakes' slow modes: resolves true when the client went away before `ms` passed
 * (the fake then answers nothing), false after `ms`. The timer is cleared either way, so a slow fake
 * never holds the test process open.
 */
export function waitOrGone(res: ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(false);
    }, ms);
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    res.once('close', onClose);
  });
}
