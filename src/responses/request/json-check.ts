import { ApiError, Errors } from '../../common/errors/api-error';
import { kindOf } from '../../common/errors/validation-errors';

export type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Small typed readers for request JSON: each checks one value at a JSON path and throws the
 * catalogue's error naming that path (`input.0.content.1.text`). Used where unions make
 * decorator-based DTOs awkward and imprecise.
 */
export class JsonCheck {
  constructor(readonly path: string) {}

  at(key: string | number): JsonCheck {
    return new JsonCheck(this.path ? `${this.path}.${key}` : String(key));
  }

  object(value: unknown, allowed: readonly string[]): JsonObject {
    if (!isObject(value)) throw this.wrongType(value, 'an object');
    for (const key of Object.keys(value)) if (!allowed.includes(key)) throw Errors.unknownParameter(this.at(key).path);
    return value;
  }

  string(value: unknown, options: { maxLength?: number; pattern?: RegExp; patternText?: string; nonEmpty?: boolean } = {}): string {
    if (typeof value !== 'string') throw this.wrongType(value, 'a string');
    if (options.nonEmpty && value.length === 0) throw Errors.invalidValue(this.path, 'expected a non-empty string');
    if (options.maxLength !== undefined && value.length > options.maxLength) {
      throw Errors.invalidValue(this.path, `string too long: expected at most ${options.maxLength} characters, got ${value.length}`);
    }
    if (options.pattern && !options.pattern.test(value)) throw Errors.invalidValue(this.path, `must match ${options.patternText ?? String(options.pattern)}`);
    return value;
  }

  boolean(value: unknown): boolean {
    if (typeof value !== 'boolean') throw this.wrongType(value, 'a boolean');
    return value;
  }

  integer(value: unknown, min?: number, max?: number): number {
    if (typeof value !== 'number' || !Number.isInteger(value)) throw this.wrongType(value, 'an integer');
    return this.range(value, min, max);
  }

  number(value: unknown, min?: number, max?: number): number {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw this.wrongType(value, 'a number');
    return this.range(value, min, max);
  }

  array(value: unknown, maxItems?: number): unknown[] {
    if (!Array.isArray(value)) throw this.wrongType(value, 'an array');
    if (maxItems !== undefined && value.length > maxItems) throw Errors.invalidValue(this.path, `array too long: expected at most ${maxItems} items, got ${value.length}`);
    return value;
  }

  oneOf<T extends string>(value: unknown, allowed: readonly T[]): T {
    if (typeof value !== 'string') throw this.wrongType(value, 'a string');
    if (!allowed.includes(value as T)) throw Errors.invalidValue(this.path, `'${value}' is not one of ${allowed.map((v) => `'${v}'`).join(', ')}`);
    return value as T;
  }

  required(value: unknown): unknown {
    if (value === undefined) throw Errors.missingParameter(this.path);
    return value;
  }

  unsupported(message: string): ApiError {
    return Errors.unsupportedValue(this.path, message);
  }

  private range(value: number, min?: number, max?: number): number {
    if (min !== undefined && value < min) throw Errors.invalidValue(this.path, `expected a value >= ${min}, got ${value}`);
    if (max !== undefined && value > max) throw Errors.invalidValue(this.path, `expected a value <= ${max}, got ${value}`);
    return value;
  }

  private wrongType(value: unknown, expected: string): ApiError {
    if (this.path === '') {
      return new ApiError(400, `The request body must be ${expected}, but got ${kindOf(value)}.`, 'invalid_request_error', 'invalid_type', null);
    }
    if (value === undefined) return Errors.missingParameter(this.path);
    return Errors.invalidType(this.path, `expected ${expected}, but got ${kindOf(value)} instead`);
  }
}

/** Reads an optional (absent or null) field with `read`, else returns `fallback`. */
export function optional<T>(value: unknown, read: (value: unknown) => T): T | null;
export function optional<T>(value: unknown, read: (value: unknown) => T, fallback: T): T;
export function optional<T>(value: unknown, read: (value: unknown) => T, fallback: T | null = null): T | null {
  return value === undefined || value === null ? fallback : read(value);
}
