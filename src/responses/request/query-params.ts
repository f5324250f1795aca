import type { IncludeValue } from '../../generation/response-request';
import { Errors } from '../../common/errors/api-error';
import { parseInclude } from './create-request';
import { JsonCheck } from './json-check';

type Query = Record<string, unknown>;

/**
 * Query strings as clients send them: arrays as `include`, `include[]` or `include[0]` (the JS
 * SDK sends `include[]`), a lone value as a one-element array; booleans as "true"/"false";
 * integers as decimal strings. Unknown parameters are a 400, as in bodies.
 */
function collect(query: Query, allowed: readonly string[], arrays: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [rawKey, rawValue] of Object.entries(query)) {
    const match = /^([a-z_]+)(?:\[(\d*)\])?$/.exec(rawKey);
    const key = match?.[1] ?? rawKey;
    if (!allowed.includes(key) || (match?.[2] !== undefined && !arrays.includes(key))) throw Errors.unknownParameter(rawKey);
    const values = Array.isArray(rawValue) ? rawValue.map(String) : [String(rawValue)];
    out.set(key, [...(out.get(key) ?? []), ...values]);
  }
  return out;
}

function single(params: Map<string, string[]>, key: string): string | undefined {
  const values = params.get(key);
  if (!values) return undefined;
  if (values.length > 1) throw Errors.invalidValue(key, 'expected a single value');
  return values[0];
}

function bool(params: Map<string, string[]>, key: string): boolean | undefined {
  const value = single(params, key);
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw Errors.invalidValue(key, `expected 'true' or 'false', got '${value}'`);
  return value === 'true';
}

function int(params: Map<string, string[]>, key: string, min: number, max: number): number | undefined {
  const value = single(params, key);
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw Errors.invalidType(key, `expected an integer, but got '${value}'`);
  return new JsonCheck(key).integer(Number(value), min, max);
}

export interface RetrieveQuery {
  include: IncludeValue[];
  stream: boolean;
  startingAfter?: number;
}

export function parseRetrieveQuery(query: Query): RetrieveQuery {
  const params = collect(query, ['include', 'stream', 'starting_after', 'include_obfuscation'], ['include']);
  if (bool(params, 'include_obfuscation') === true) throw Errors.unsupportedValue('include_obfuscation', 'stream obfuscation is not supported.');
  const startingAfter = int(params, 'starting_after', -1, Number.MAX_SAFE_INTEGER);
  return {
    include: parseInclude(new JsonCheck('include'), params.get('include') ?? []),
    stream: bool(params, 'stream') ?? false,
    ...(startingAfter !== undefined ? { startingAfter } : {}),
  };
}

export interface InputItemsQuery {
  order: 'asc' | 'desc';
  limit: number;
  after?: string;
  before?: string;
  include: IncludeValue[];
}

export function parseInputItemsQuery(query: Query): InputItemsQuery {
  const params = collect(query, ['after', 'before', 'limit', 'order', 'include'], ['include']);
  const order = single(params, 'order');
  const after = single(params, 'after');
  const before = single(params, 'before');
  return {
    order: order === undefined ? 'desc' : new JsonCheck('order').oneOf(order, ['asc', 'desc'] as const),
    limit: int(params, 'limit', 1, 100) ?? 20,
    ...(after !== undefined ? { after } : {}),
    ...(before !== undefined ? { before } : {}),
    include: parseInclude(new JsonCheck('include'), params.get('include') ?? []),
  };
}
