import type { LoggerService } from '@nestjs/common';
import { pino, type Logger } from 'pino';
import type { LogLevel } from '../../config/app-config';

/** One pino logger per process: JSON lines on stdout, level from LOG_LEVEL. */
export function createLogger(level: LogLevel, role: string): Logger {
  return pino({
    level,
    base: { role },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}

/** Routes Nest's own logging (module init, Logger instances) into the same pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, rest: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    // Nest passes the context (class name) last; Logger.error passes a stack before it.
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    const stack = level === 'error' && typeof rest[0] === 'string' && rest.length > 1 ? rest[0] : undefined;
    if (message !== null && typeof message === 'object' && !(message instanceof Error)) {
      const { msg, ...fields } = message as Record<string, unknown>;
      this.logger[level]({ context, ...fields }, typeof msg === 'string' ? msg : undefined);
      return;
    }
    const text = message instanceof Error ? message.message : String(message);
    this.logger[level]({ context, ...(stack ? { stack } : {}) }, text);
  }
}
