/**
 * What the simulated engine knows about a function's parameters, and how it makes up arguments
 * that fit them. Harmony prompts only carry the TypeScript-like rendering of each schema
 * (`type get_weather = (_: { location: string, unit?: "c" | "f" }) => any;`), so that text is
 * parsed back here; chat requests carry JSON Schema, which is converted to the same shape.
 */
import type { JsonSchema } from '../engine';

export type SimType =
  | { kind: 'string'; enumValues?: string[]; minLength?: number; maxLength?: number }
  | { kind: 'number'; integer: boolean; minimum?: number; maximum?: number }
  | { kind: 'boolean' }
  | { kind: 'null' }
  | { kind: 'any' }
  | { kind: 'const'; value: unknown }
  | { kind: 'array'; items: SimType; minItems?: number }
  | { kind: 'object'; properties: SimProperty[] }
  | { kind: 'union'; variants: SimType[] };

export interface SimProperty {
  name: string;
  type: SimType;
  required: boolean;
}

export interface SimToolSignature {
  name: string;
  /** Undefined for `() => any` (a function without parameters). */
  params?: SimType;
}

// ---- TypeScript-like rendering (harmony-spec §3.4/§3.5) → SimType ------------------------------

/** Reads the functions of `namespace NAME { … } // namespace NAME` in a developer message. */
export function parseNamespaceTools(text: string, namespace: string): SimToolSignature[] {
  const start = text.indexOf(`namespace ${namespace} {`);
  if (start === -1) return [];
  const endMarker = text.indexOf(`} // namespace ${namespace}`, start);
  const body = text.slice(start + `namespace ${namespace} {`.length, endMarker === -1 ? undefined : endMarker);
  const tools: SimToolSignature[] = [];
  const declaration = /^type ([^\s=]+) = /gm;
  for (let match = declaration.exec(body); match; match = declaration.exec(body)) {
    const name = match[1]!;
    const rest = body.slice(match.index + match[0].length);
    if (rest.startsWith('() => any;')) {
      tools.push({ name });
      continue;
    }
    let params: SimType = { kind: 'any' };
    if (rest.startsWith('(_:')) {
      try {
        params = new TsTypeReader(rest, 3).readType();
      } catch {
        // An unreadable signature still names a callable function; its arguments become `{}`.
      }
    }
    tools.push({ name, params });
  }
  return tools;
}

class TsTypeReader {
  constructor(
    private readonly text: string,
    private pos: number,
  ) {}

  readType(): SimType {
    this.skip();
    if (this.peek('|')) this.pos++; // a oneOf list starts with its first bar
    const variants = [this.readPostfix()];
    for (;;) {
      this.skip();
      if (!this.peek('|')) break;
      this.pos++;
      variants.push(this.readPostfix());
    }
    return variants.length === 1 ? variants[0]! : { kind: 'union', variants };
  }

  private readPostfix(): SimType {
    let type = this.readPrimary();
    while (this.text.startsWith('[]', this.pos)) {
      this.pos += 2;
      type = { kind: 'array', items: type };
    }
    return type;
  }

  private readPrimary(): SimType {
    this.skip();
    if (this.peek('{')) return this.readObject();
    if (this.peek('"')) {
      const end = this.text.indexOf('"', this.pos + 1);
      if (end === -1) throw new Error('unterminated string literal');
      const value = this.text.slice(this.pos + 1, end);
      this.pos = end + 1;
      return { kind: 'string', enumValues: [value] };
    }
    const word = /^[A-Za-z_][\w<>]*/.exec(this.text.slice(this.pos, this.pos + 32))?.[0];
    if (!word) throw new Error(`unexpected text at ${this.pos}`);
    this.pos += word.length;
    switch (word) {
      case 'string':
        return { kind: 'string' };
      case 'number':
        return { kind: 'number', integer: false };
      case 'boolean':
        return { kind: 'boolean' };
      case 'null':
        return { kind: 'null' };
      case 'Array<any>':
        return { kind: 'array', items: { kind: 'any' } };
      default:
        return { kind: 'any' };
    }
  }

  private readObject(): SimType {
    this.pos++; // {
    const properties: SimProperty[] = [];
    for (;;) {
      this.skip();
      if (this.peek('}')) {
        this.pos++;
        return { kind: 'object', properties };
      }
      const colon = this.text.indexOf(':', this.pos);
      const newline = this.text.indexOf('\n', this.pos);
      if (colon === -1 || (newline !== -1 && newline < colon)) throw new Error('property without a type');
      let name = this.text.slice(this.pos, colon).trim();
      const required = !name.endsWith('?');
      if (!required) name = name.slice(0, -1);
      this.pos = colon + 1;
      const type = this.readType();
      properties.push({ name, type: uniqueEnum(type), required });
      this.skip();
      if (this.peek(',')) this.pos++;
    }
  }

  /** Skips whitespace and `//` comments (descriptions, defaults, examples). */
  private skip(): void {
    for (;;) {
      while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos++;
      if (this.text.startsWith('//', this.pos)) {
        const end = this.text.indexOf('\n', this.pos);
        this.pos = end === -1 ? this.text.length : end + 1;
        continue;
      }
      if (this.pos >= this.text.length) throw new Error('unexpected end of signature');
      return;
    }
  }

  private peek(char: string): boolean {
    return this.text[this.pos] === char;
  }
}

/** `"a" | "b"` reads as a union of one-value strings; fold it into one enum. */
function uniqueEnum(type: SimType): SimType {
  if (type.kind !== 'union') return type;
  if (type.variants.every((v) => v.kind === 'string' && v.enumValues?.length === 1)) {
    return { kind: 'string', enumValues: type.variants.map((v) => (v.kind === 'string' ? v.enumValues![0]! : '')) };
  }
  return type;
}

// ---- JSON Schema → SimType ------------------------------------------------------------------

export function simTypeFromSchema(schema: unknown, depth = 0): SimType {
  if (typeof schema !== 'object' || schema === null || depth > 32) return { kind: 'any' };
  const s = schema as JsonSchema;
  if ('const' in s) return { kind: 'const', value: s.const };
  if (Array.isArray(s.enum) && s.enum.length > 0) return { kind: 'const', value: s.enum[0] };
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = s[key];
    if (Array.isArray(list) && list.length > 0) {
      // allOf's first member is only a guess; anyOf/oneOf's first non-null member is valid.
      const pick = list.find((v) => (v as JsonSchema | null)?.type !== 'null') ?? list[0];
      return simTypeFromSchema(pick, depth + 1);
    }
  }
  let type = s.type;
  if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? type[0];
  switch (type) {
    case 'string':
      return {
        kind: 'string',
        ...(typeof s.minLength === 'number' ? { minLength: s.minLength } : {}),
        ...(typeof s.maxLength === 'number' ? { maxLength: s.maxLength } : {}),
      };
    case 'integer':
    case 'number':
      return {
        kind: 'number',
        integer: type === 'integer',
        ...(typeof s.minimum === 'number' ? { minimum: s.minimum } : {}),
        ...(typeof s.maximum === 'number' ? { maximum: s.maximum } : {}),
      };
    case 'boolean':
      return { kind: 'boolean' };
    case 'null':
      return { kind: 'null' };
    case 'array':
      return {
        kind: 'array',
        items: simTypeFromSchema(s.items, depth + 1),
        ...(typeof s.minItems === 'number' ? { minItems: s.minItems } : {}),
      };
    case 'object':
    case undefined: {
      if (type === undefined && typeof s.properties !== 'object') return { kind: 'any' };
      const props = (typeof s.properties === 'object' && s.properties !== null ? s.properties : {}) as Record<string, unknown>;
      const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : []);
      return {
        kind: 'object',
        properties: Object.keys(props).map((name) => ({
          name,
          type: simTypeFromSchema(props[name], depth + 1),
          required: required.has(name),
        })),
      };
    }
    default:
      return { kind: 'any' };
  }
}

// ---- made-up values ---------------------------------------------------------------------------

/**
 * A value that fits `type`: strings are `text` (cut or padded to the length bounds), numbers 1
 * (clamped into their range), booleans true, enums their first value, arrays one item (or their
 * minimum), objects their required properties only. `any` becomes `{}`.
 */
export function sampleValue(type: SimType | undefined, text: string, depth = 0): unknown {
  if (type === undefined || depth > 32) return {};
  switch (type.kind) {
    case 'string': {
      if (type.enumValues && type.enumValues.length > 0) return type.enumValues[0];
      let value = text;
      if (type.maxLength !== undefined && value.length > type.maxLength) value = value.slice(0, type.maxLength);
      if (type.minLength !== undefined && value.length < type.minLength) value = value.padEnd(type.minLength, '.');
      return value;
    }
    case 'number': {
      let value = 1;
      if (type.minimum !== undefined && value < type.minimum) value = type.integer ? Math.ceil(type.minimum) : type.minimum;
      if (type.maximum !== undefined && value > type.maximum) value = type.integer ? Math.floor(type.maximum) : type.maximum;
      return value;
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'any':
      return {};
    case 'const':
      return type.value;
    case 'array':
      return Array.from({ length: Math.max(1, type.minItems ?? 1) }, () => sampleValue(type.items, text, depth + 1));
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const property of type.properties) {
        if (property.required) value[property.name] = sampleValue(property.type, text, depth + 1);
      }
      return value;
    }
    case 'union':
      return sampleValue(type.variants.find((v) => v.kind !== 'null') ?? type.variants[0], text, depth + 1);
  }
}
