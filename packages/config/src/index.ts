export { loadConfig, ConfigError } from './load-config.js';
export { envBoolean, envInt, envOptionalString, envList, envBaseUrl, commonEnv, LOG_LEVELS } from './env-fields.js';
export { webhookEnv } from './webhook-env.js';
export { cacheEnv } from './cache-env.js';
export { queueEnv } from './queue-env.js';
export { llmEnv, llmSettingsOf, LLM_MODEL_FEATURES, LLM_SETTING, type LlmEnvSettings, type LlmModelFeature } from './llm-env.js';
export { searchEnv, searchSettingsOf, SEARCH_PROVIDERS, type SearchEnvSettings, type SearchProviderName } from './search-env.js';
