/** Calls the admin HTTP API (the CLI's `teams` and `keys` commands). */
export async function adminRequest(opts: { baseUrl: string; adminKey: string | undefined; method: string; path: string; body?: unknown }): Promise<unknown> {
  if (!opts.adminKey) throw new Error('Set TRAWL_ADMIN_KEY (in embedded mode it is in .data/admin-key)');
  const res = await fetch(new URL(opts.path, opts.baseUrl), {
    method: opts.method,
    headers: { authorization: `Bearer ${opts.adminKey}`, 'content-type': 'application/json' },
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${res.status} ${String(json.code ?? '')}: ${String(json.error ?? res.statusText)}`);
  return json;
}
