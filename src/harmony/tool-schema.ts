/**
 * JSON Schema → the TypeScript-like text harmony shows the model for function parameters
 * (harmony-spec §3.5). Exactly the constructs the spec lists are understood; anything else is
 * `any`, as upstream renders it.
 */
type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Compact JSON, as serde_json prints a value. */
const display = (value: unknown): string => JSON.stringify(value) ?? 'null';

function hasNonEmptyEnum(schema: Schema): boolean {
  return Array.isArray(schema.enum) && schema.enum.length > 0;
}

/** The `default:` comment text of a schema with a default. */
function defaultComment(schema: Schema): string {
  const value = schema.default;
  if (typeof value === 'string') return hasNonEmptyEnum(schema) ? `default: ${value}` : `default: "${value}"`;
  return `default: ${display(value)}`;
}

function withNullable(variant: unknown, text: string): string {
  return isObject(variant) && variant.nullable === true && !text.includes('null') ? `${text} | null` : text;
}

export function schemaToTypeScript(schema: unknown, indent = ''): string {
  if (!isObject(schema)) return 'any';
  if (Array.isArray(schema.oneOf)) {
    let out = '';
    for (const variant of schema.oneOf) {
      out += `\n${indent} | ${withNullable(variant, schemaToTypeScript(variant, `${indent}   `))}`;
      const comments: string[] = [];
      if (isObject(variant)) {
        if (typeof variant.description === 'string') comments.push(variant.description);
        if ('default' in variant) {
          comments.push(typeof variant.default === 'string' && !hasNonEmptyEnum(variant) ? `default: "${variant.default}"` : `default: ${display(variant.default)}`);
        }
      }
      if (comments.length > 0) out += ` // ${comments.join(' ')}`;
    }
    return out;
  }
  const type = schema.type;
  if (Array.isArray(type)) {
    const names = type.filter((entry): entry is string => typeof entry === 'string').map((entry) => (entry === 'integer' ? 'number' : entry));
    if (names.length > 0) return names.join(' | ');
    return 'any';
  }
  if (typeof type !== 'string') return 'any';
  switch (type) {
    case 'object':
      return objectToTypeScript(schema, indent);
    case 'string': {
      const values = Array.isArray(schema.enum) ? schema.enum.filter((value): value is string => typeof value === 'string') : [];
      return values.length > 0 ? values.map((value) => `"${value}"`).join(' | ') : 'string';
    }
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'items' in schema ? `${schemaToTypeScript(schema.items, indent)}[]` : 'Array<any>';
    default:
      return 'any';
  }
}

function objectToTypeScript(schema: Schema, indent: string): string {
  let out = typeof schema.description === 'string' ? `${indent}// ${schema.description}\n` : '';
  out += '{\n';
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === 'string') : []);
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const key of Object.keys(properties)) {
    const value = properties[key];
    const property: Schema = isObject(value) ? value : {};
    const optional = required.has(key) ? '' : '?';
    if (typeof property.title === 'string') out += `${indent}// ${property.title}\n${indent}//\n`;
    if (!('oneOf' in property) && typeof property.description === 'string') out += `${indent}// ${property.description}\n`;
    if (Array.isArray(property.examples) && property.examples.length > 0) {
      out += `${indent}// Examples:\n`;
      for (const example of property.examples) if (typeof example === 'string') out += `${indent}// - "${example}"\n`;
    }
    if (Array.isArray(property.oneOf)) {
      const variants = property.oneOf;
      const propertyDescription = typeof property.description === 'string' ? property.description : undefined;
      const firstDescription = isObject(variants[0]) ? variants[0].description : undefined;
      const renderedAbove = propertyDescription !== undefined && firstDescription !== propertyDescription;
      if (renderedAbove) out += `${indent}// ${propertyDescription}\n`;
      if ('default' in property) out += `${indent}// ${defaultComment(property)}\n`;
      out += `${indent}${key}${optional}:\n`;
      variants.forEach((variant, index) => {
        out += `${indent} | ${withNullable(variant, schemaToTypeScript(variant, `${indent}   `))}`;
        const comments: string[] = [];
        if (isObject(variant)) {
          const skipDescription = index === 0 && renderedAbove;
          if (!skipDescription && typeof variant.description === 'string' && variant.description !== propertyDescription) {
            comments.push(variant.description);
          }
          if ('default' in variant) comments.push(defaultComment(variant));
        }
        if (comments.length > 0) out += ` // ${comments.join(' ')}`;
        out += '\n';
      });
      out += `${indent},\n`;
      continue;
    }
    out += `${indent}${key}${optional}: ${withNullable(property, schemaToTypeScript(property, `${indent}    `))},`;
    if ('default' in property) out += ` // ${defaultComment(property)}`;
    out += '\n';
  }
  return `${out}${indent}}`;
}
