import { Router } from 'express';
import {
  TrawlError,
  apiKeyParamsSchema,
  createApiKeyRequestSchema,
  createTeamRequestSchema,
  teamIdParamsSchema,
  updateTeamRequestSchema,
} from '@trawl/api-schema';
import type { TeamStore } from '@trawl/queue';


import { jsonBody } from '../middleware/json-body.js';
import { parseOrThrow } from '../middleware/validate.js';

/** The admin API (behind admin-key auth): teams and keys. */
export function adminRoutes(deps: { teams: TeamStore; maxBodyBytes: number; maxJsonDepth?: number }): Router {
  const router = Router();
  const body = jsonBody(deps);
  const { teams } = deps;
  const teamOr404 = async (id: string) => {
    const team = await teams.get(id);
    if (!team) throw new TrawlError('NOT_FOUND', `No team ${id}`);
    return team;
  };

  router.post('/admin/teams', body, async (req, res) => {
    const input = parseOrThrow(createTeamRequestSchema, req.body ?? {});
    res.json({ success: true, ...(await teams.create(input)) });
  });
  router.get('/admin/teams', async (_req, res) => {
    res.json({ success: true, teams: await teams.list() });
  });
  router.get('/admin/teams/:id', async (req, res) => {
    const { id } = parseOrThrow(teamIdParamsSchema, req.params);
    res.json({ success: true, ...(await teamOr404(id)) });
  });
  router.patch('/admin/teams/:id', body, async (req, res) => {
    const { id } = parseOrThrow(teamIdParamsSchema, req.params);
    const patch = parseOrThrow(updateTeamRequestSchema, req.body ?? {});
    const team = await teams.update(id, patch);
    if (!team) throw new TrawlError('NOT_FOUND', `No team ${id}`);
    res.json({ success: true, ...team });
  });
  router.post('/admin/teams/:id/keys', body, async (req, res) => {
    const { id } = parseOrThrow(teamIdParamsSchema, req.params);
    const input = parseOrThrow(createApiKeyRequestSchema, req.body ?? {});
    await teamOr404(id);
    const { key, record } = await teams.createKey(id, input.name !== undefined ? { name: input.name } : {});
    res.json({ success: true, key, keyId: record.keyId, teamId: id });
  });
  router.get('/admin/teams/:id/keys', async (req, res) => {
    const { id } = parseOrThrow(teamIdParamsSchema, req.params);
    await teamOr404(id);
    res.json({ success: true, keys: await teams.listKeys(id) });
  });
  // The plain key or its keyId (listings show only keyIds).
  router.delete('/admin/keys/:key', async (req, res) => {
    const { key } = parseOrThrow(apiKeyParamsSchema, req.params);
    if (!(await teams.deleteKey(key))) throw new TrawlError('NOT_FOUND', 'No such API key');
    res.json({ success: true });
  });
  return router;
}
