import { ConfigError, ENV_VARS, loadConfig } from './load-config';

function problems(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected loadConfig to throw');
}

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      role: 'all',
      redisUrl: 'redis://127.0.0.1:6379',
      keyPrefix: 'rg',
      engine: 'simulated',
      engineModel: 'gpt-oss-simulated',
      logLevel: 'info',
      simPort: 8000,
      simTtftMs: 0,
      simTokensPerSecond: 0,
    });
    expect(config.engineUrl).toBeUndefined();
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '127.0.0.1',
      ROLE: 'worker',
      REDIS_URL: 'rediss://user:pw@redis.internal:6380/2',
      KEY_PREFIX: 'prod-a',
      ENGINE: 'chat',
      ENGINE_URL: 'http://vllm:8000',
      ENGINE_MODEL: 'openai/gpt-oss-120b',
      ENGINE_FIRST_TOKEN_TIMEOUT_MS: '5000',
      ENGINE_IDLE_TIMEOUT_MS: '2000',
      LOG_LEVEL: 'debug',
      BODY_LIMIT_BYTES: '2048',
      SHUTDOWN_TIMEOUT_MS: '0',
      SIM_PORT: '8111',
      SIM_TTFT_MS: '20',
      SIM_TOKENS_PER_SECOND: '500',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '127.0.0.1',
      role: 'worker',
      redisUrl: 'rediss://user:pw@redis.internal:6380/2',
      keyPrefix: 'prod-a',
      engine: 'chat',
      engineUrl: 'http://vllm:8000',
      engineModel: 'openai/gpt-oss-120b',
      engineFirstTokenTimeoutMs: 5000,
      engineIdleTimeoutMs: 2000,
      logLevel: 'debug',
      bodyLimitBytes: 2048,
      shutdownTimeoutMs: 0,
      simPort: 8111,
      simTtftMs: 20,
      simTokensPerSecond: 500,
    });
  });

  it('maps every documented variable to a config property', () => {
    const config = loadConfig({});
    for (const [, [key]] of Object.entries(ENV_VARS)) expect(key in config || key === 'engineUrl').toBe(true);
  });

  it('defaults ENGINE to vllm when ENGINE_URL is set', () => {
    expect(loadConfig({ ENGINE_URL: 'http://127.0.0.1:8000' }).engine).toBe('vllm');
    expect(loadConfig({ ENGINE_URL: 'http://127.0.0.1:8000', ENGINE: 'chat' }).engine).toBe('chat');
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', ROLE: '  ' })).toMatchObject({ port: 8080, role: 'all' });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT="eighty": must be an integer'],
    [{ PORT: '70000' }, 'PORT="70000": must not be greater than 65535'],
    [{ PORT: '8080.5' }, 'PORT="8080.5": must be an integer'],
    [{ ROLE: 'both' }, 'ROLE="both": must be one of the following values: api, worker, all'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL="localhost:6379": must be a redis:// or rediss:// URL'],
    [{ KEY_PREFIX: 'a{b}' }, 'KEY_PREFIX="a{b}": must be 1-64 characters'],
    [{ ENGINE: 'tgi' }, 'ENGINE="tgi": must be one of the following values: simulated, vllm, chat'],
    [{ ENGINE: 'vllm' }, 'ENGINE_URL="": must be an http(s) URL (required when ENGINE is vllm or chat)'],
    [{ ENGINE_URL: 'ftp://x' }, 'ENGINE_URL="ftp://x": must be an http(s) URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL="loud": must be one of the following values'],
    [{ BODY_LIMIT_BYTES: '10' }, 'BODY_LIMIT_BYTES="10": must not be less than 1024'],
    [{ SIM_TOKENS_PER_SECOND: '-1' }, 'SIM_TOKENS_PER_SECOND="-1": must not be less than 0'],
  ])('rejects %j naming the variable', (env, expected) => {
    expect(problems(env)).toContain(expected);
  });

  it('reports every bad variable at once', () => {
    const message = problems({ PORT: 'x', ROLE: 'y', LOG_LEVEL: 'z' });
    expect(message).toMatch(/PORT=.*\n.*ROLE=.*\n.*LOG_LEVEL=/);
  });
});
