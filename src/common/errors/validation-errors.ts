import type { ValidationError } from 'class-validator';
import { ApiError, Errors } from './api-error';

const TYPE_CONSTRAINTS: Readonly<Record<string, string>> = {
  isString: 'expected a string',
  isInt: 'expected an integer',
  isNumber: 'expected a number',
  isBoolean: 'expected a boolean',
  isArray: 'expected an array',
  isObject: 'expected an object',
};

/**
 * Turns class-validator's error tree into one OpenAI error for the first problem, with `param`
 * as the JSON path of the offending field (`input.0.role`).
 */
export function toApiError(errors: readonly ValidationError[], parentPath = ''): ApiError {
  const first = errors[0];
  if (!first) return Errors.invalidValue(null, 'the request is invalid');
  const path = parentPath ? `${parentPath}.${first.property}` : first.property;
  const constraints = first.constraints ?? {};
  const names = Object.keys(constraints);
  if (names.length === 0 && first.children?.length) return toApiError(first.children, path);
  if ('whitelistValidation' in constraints) return Errors.unknownParameter(path);
  if (first.value === undefined) return Errors.missingParameter(path);
  const typeName = names.find((name) => name in TYPE_CONSTRAINTS);
  if (typeName) return Errors.invalidType(path, `${TYPE_CONSTRAINTS[typeName]}, but got ${kindOf(first.value)} instead`);
  const message = constraints[names[0]!] ?? 'is invalid';
  return Errors.invalidValue(path, message.replace(new RegExp(`^${escapeRegExp(first.property)} `), ''));
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a decimal';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
