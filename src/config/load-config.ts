import 'reflect-metadata';
import { validateSync, type ValidationError } from 'class-validator';
import { AppConfig } from './app-config';

type Env = Readonly<Record<string, string | undefined>>;
type Kind = 'int' | 'string';

/** Environment variable → config property. The single place that knows variable names. */
export const ENV_VARS = {
  PORT: ['port', 'int'],
  HOST: ['host', 'string'],
  ROLE: ['role', 'string'],
  REDIS_URL: ['redisUrl', 'string'],
  KEY_PREFIX: ['keyPrefix', 'string'],
  ENGINE: ['engine', 'string'],
  ENGINE_URL: ['engineUrl', 'string'],
  ENGINE_MODEL: ['engineModel', 'string'],
  ENGINE_FIRST_TOKEN_TIMEOUT_MS: ['engineFirstTokenTimeoutMs', 'int'],
  ENGINE_IDLE_TIMEOUT_MS: ['engineIdleTimeoutMs', 'int'],
  LOG_LEVEL: ['logLevel', 'string'],
  BODY_LIMIT_BYTES: ['bodyLimitBytes', 'int'],
  SHUTDOWN_TIMEOUT_MS: ['shutdownTimeoutMs', 'int'],
  API_KEYS: ['apiKeysRaw', 'string'],
  RESPONSE_TTL_SECONDS: ['responseTtlSeconds', 'int'],
  REASONING_ENCRYPTION_KEY: ['reasoningEncryptionKey', 'string'],
  WORKER_CONCURRENCY: ['workerConcurrency', 'int'],
  HEARTBEAT_INTERVAL_MS: ['heartbeatIntervalMs', 'int'],
  QUEUE_LIMIT_PER_TENANT: ['queueLimitPerTenant', 'int'],
  SIM_PORT: ['simPort', 'int'],
  SIM_TTFT_MS: ['simTtftMs', 'int'],
  SIM_TOKENS_PER_SECOND: ['simTokensPerSecond', 'int'],
} as const satisfies Record<string, readonly [keyof AppConfig, Kind]>;

type EnvVar = keyof typeof ENV_VARS;

/** Values never echoed in error messages. */
const SECRET_VARS: ReadonlySet<string> = new Set(['API_KEYS', 'REASONING_ENCRYPTION_KEY']);

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

const variableOf = new Map<string, EnvVar>(
  (Object.keys(ENV_VARS) as EnvVar[]).map((name) => [ENV_VARS[name][0], name]),
);

function parseInt10(raw: string): number {
  return /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
}

/**
 * Reads and validates the configuration. Empty variables count as unset. Any bad value throws a
 * ConfigError whose message names every offending variable, so startup stops with a clear reason.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  const config = new AppConfig();
  const target = config as unknown as Record<string, unknown>;
  const problems: string[] = [];
  for (const name of Object.keys(ENV_VARS) as EnvVar[]) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    const [key, kind] = ENV_VARS[name];
    if (kind === 'int') {
      const value = parseInt10(raw);
      if (Number.isNaN(value)) problems.push(`${name}=${JSON.stringify(raw)}: must be an integer`);
      else target[key] = value;
    } else {
      target[key] = raw.trim();
    }
  }
  // ENGINE defaults to vllm when an engine URL is given (design.md, Operations interface).
  if (!env.ENGINE?.trim() && config.engineUrl !== undefined) config.engine = 'vllm';
  if (config.engine === 'simulated' && config.engineModel === undefined) {
    config.engineModel = 'gpt-oss-simulated';
  }

  const alreadyReported = new Set(problems.map((p) => p.slice(0, p.indexOf('='))));
  for (const error of validateSync(config, { forbidUnknownValues: true })) {
    const name = variableOf.get(error.property) ?? error.property;
    if (alreadyReported.has(name)) continue;
    const shown = SECRET_VARS.has(name) ? '(redacted)' : JSON.stringify(env[name] ?? String(describe(error)));
    problems.push(`${name}=${shown}: ${reasons(error)}`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  if (config.apiKeysRaw) {
    const keys = parseApiKeys(config.apiKeysRaw);
    if (keys.duplicate) throw new ConfigError([`API_KEYS: the key ending in …${keys.duplicate.slice(-4)} is listed twice`]);
    config.apiKeys = keys.map;
  }
  return Object.freeze(config);
}

function describe(error: ValidationError): unknown {
  return error.value === undefined ? '' : error.value;
}

function reasons(error: ValidationError): string {
  return Object.values(error.constraints ?? {})
    .map((message) => message.replace(new RegExp(`^${error.property} `), ''))
    .join('; ');
}

function parseApiKeys(raw: string): { map: Map<string, string>; duplicate?: string } {
  const map = new Map<string, string>();
  for (const pair of raw.split(',')) {
    const at = pair.lastIndexOf(':');
    const key = pair.slice(0, at);
    if (map.has(key)) return { map, duplicate: key };
    map.set(key, pair.slice(at + 1));
  }
  return { map };
}

/** For process entry points: the config, or a message naming every bad variable and exit 78 (EX_CONFIG). */
export function loadConfigOrExit(env: Env = process.env): AppConfig {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}
