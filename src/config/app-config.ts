import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';

export type Role = 'api' | 'worker' | 'all';
export type EngineKind = 'simulated' | 'vllm' | 'chat';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export const ROLES: readonly Role[] = ['api', 'worker', 'all'];
export const ENGINE_KINDS: readonly EngineKind[] = ['simulated', 'vllm', 'chat'];
export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * The whole runtime configuration, read once from the environment at boot (see load-config.ts).
 * Each property's `@Env` name is the variable it comes from; the README's table lists them all.
 */
export class AppConfig {
  @IsInt() @Min(1) @Max(65535)
  port = 8080;

  @IsString() @Matches(/^[\w.:-]+$/)
  host = '0.0.0.0';

  @IsIn(ROLES)
  role: Role = 'all';

  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// or rediss:// URL' })
  redisUrl = 'redis://127.0.0.1:6379';

  // Braces and colons would break the hash-tagged key layout (redis-keys.ts).
  @Matches(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'must be 1-64 characters of [A-Za-z0-9_.-]' })
  keyPrefix = 'rg';

  @IsIn(ENGINE_KINDS)
  engine: EngineKind = 'simulated';

  @ValidateIf((c: AppConfig) => c.engine !== 'simulated' || c.engineUrl !== undefined)
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'must be an http(s) URL (required when ENGINE is vllm or chat)' })
  engineUrl?: string;

  @IsOptional() @IsString() @Matches(/\S/)
  engineModel?: string;

  @IsInt() @Min(100) @Max(3_600_000)
  engineFirstTokenTimeoutMs = 120_000;

  @IsInt() @Min(100) @Max(3_600_000)
  engineIdleTimeoutMs = 60_000;

  @IsIn(LOG_LEVELS)
  logLevel: LogLevel = 'info';

  @IsInt() @Min(1024) @Max(1024 * 1024 * 1024)
  bodyLimitBytes = 16 * 1024 * 1024;

  @IsInt() @Min(0) @Max(600_000)
  shutdownTimeoutMs = 10_000;

  /** `key:tenant` pairs, comma-separated; parsed into `apiKeys`. Unset = no auth, one tenant. */
  @IsOptional() @Matches(/^[^\s:,]+:[\w.-]+(,[^\s:,]+:[\w.-]+)*$/, {
    message: 'must be comma-separated key:tenant pairs (tenant: [A-Za-z0-9_.-])',
  })
  apiKeysRaw?: string;

  /** API key → tenant, from API_KEYS; empty = auth off. Not validated here (derived). */
  apiKeys: ReadonlyMap<string, string> = new Map();

  /**
   * Key for `reasoning.encrypted_content` (AES-256-GCM): 32 bytes as 64 hex chars or base64. Unset
   * = a random key per process (encrypted reasoning then only round-trips to the same process).
   */
  @IsOptional() @Matches(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$/, { message: 'must be 32 bytes as 64 hex characters or base64' })
  reasoningEncryptionKey?: string;

  /** How long stored responses, their input items, history and event logs are kept. */
  @IsInt() @Min(60) @Max(365 * 24 * 3600)
  responseTtlSeconds = 30 * 24 * 3600;

  /** Background responses one worker process runs at once. */
  @IsInt() @Min(1) @Max(10_000)
  workerConcurrency = 16;

  /** Background responses one tenant may have waiting in the queue; beyond it, 429. */
  @IsInt() @Min(1) @Max(10_000_000)
  queueLimitPerTenant = 1_000;

  /** A worker refreshes its runs' heartbeats this often; a run whose heartbeat is 3× older is failed by a reaper. */
  @IsInt() @Min(100) @Max(600_000)
  heartbeatIntervalMs = 2_000;

  @IsInt() @Min(0) @Max(65535)
  simPort = 8000;

  @IsInt() @Min(0) @Max(600_000)
  simTtftMs = 0;

  @IsInt() @Min(0) @Max(100_000_000)
  simTokensPerSecond = 0;
}
