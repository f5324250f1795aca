import Ajv from 'ajv';
import { parseNamespaceTools, sampleValue, simTypeFromSchema } from './tool-signatures';

// The developer message of harmony's `test_render_functions_with_parameters.txt`, verbatim.
const DEVELOPER = `# Instructions

Always respond in riddles

# Tools

## functions

namespace functions {

// Gets the location of the user.
type get_location = () => any;

// Gets the current weather in the provided location.
type get_current_weather = (_: {
// The city and state, e.g. San Francisco, CA
location: string,
format?: "celsius" | "fahrenheit", // default: celsius
}) => any;

// Gets the current weather in the provided list of locations.
type get_multiple_weathers = (_: {
// List of city and state, e.g. ["San Francisco, CA", "New York, NY"]
locations: string[],
format?: "celsius" | "fahrenheit", // default: celsius
}) => any;

// A function with various complex schemas.
type kitchensink = (_: // params object
{
// STRING
//
// A string
// Examples:
// - "hello"
// - "world"
string?: string,
// A nullable string
string_nullable?: string | null, // default: "the default"
string_enum?: "a" | "b" | "c",
// a oneof
// default: 20
oneof_string_or_number?:
 | string // default: "default_string_in_oneof"
 | number // numbers can happen too
,
}) => any;

} // namespace functions`;

describe('parseNamespaceTools', () => {
  const tools = parseNamespaceTools(DEVELOPER, 'functions');

  it('finds every function of the namespace in order', () => {
    expect(tools.map((t) => t.name)).toEqual(['get_location', 'get_current_weather', 'get_multiple_weathers', 'kitchensink']);
  });

  it('reads a function without parameters as such', () => {
    expect(tools[0]).toEqual({ name: 'get_location' });
  });

  it('reads required and optional properties, enums and arrays', () => {
    expect(tools[1]!.params).toEqual({
      kind: 'object',
      properties: [
        { name: 'location', type: { kind: 'string' }, required: true },
        { name: 'format', type: { kind: 'string', enumValues: ['celsius', 'fahrenheit'] }, required: false },
      ],
    });
    expect(tools[2]!.params).toMatchObject({
      properties: [{ name: 'locations', type: { kind: 'array', items: { kind: 'string' } }, required: true }, { name: 'format' }],
    });
  });

  it('reads comments, nullable unions and oneOf lists without losing properties', () => {
    const params = tools[3]!.params;
    expect(params?.kind).toBe('object');
    if (params?.kind !== 'object') return;
    expect(params.properties.map((p) => [p.name, p.required, p.type.kind])).toEqual([
      ['string', false, 'string'],
      ['string_nullable', false, 'union'],
      ['string_enum', false, 'string'],
      ['oneof_string_or_number', false, 'union'],
    ]);
  });

  it('reads nested objects', () => {
    const text = `namespace functions {\n\ntype book = (_: {\n// where\nplace: {\n    city: string,\n    nights?: number,\n    },\nguests: number,\n}) => any;\n\n} // namespace functions`;
    const [book] = parseNamespaceTools(text, 'functions');
    expect(sampleValue(book!.params, 'Paris')).toEqual({ place: { city: 'Paris' }, guests: 1 });
  });

  it('returns nothing when the namespace is absent', () => {
    expect(parseNamespaceTools('# Instructions\n\nBe brief', 'functions')).toEqual([]);
  });
});

describe('sampleValue', () => {
  const ajv = new Ajv({ strict: false });
  const schemas: Record<string, unknown>[] = [
    { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['location', 'unit'] },
    { type: 'object', properties: { n: { type: 'integer', minimum: 5, maximum: 9 }, ok: { type: 'boolean' } }, required: ['n', 'ok'] },
    { type: 'object', properties: { tags: { type: 'array', items: { type: 'string', minLength: 3 }, minItems: 2 } }, required: ['tags'] },
    { type: 'object', properties: { v: { anyOf: [{ type: 'null' }, { type: 'number', maximum: 0 }] } }, required: ['v'] },
    { type: 'object', properties: { k: { const: 'fixed' }, s: { type: ['string', 'null'], maxLength: 2 } }, required: ['k', 's'] },
    { type: 'object', properties: { o: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } }, required: ['o'] },
  ];

  it.each(schemas.map((schema) => [JSON.stringify(schema), schema]))('fits %s', (_name, schema) => {
    const value = sampleValue(simTypeFromSchema(schema), 'some text');
    expect(ajv.validate(schema, value)).toBe(true);
  });

  it('uses the given text for strings and leaves optional properties out', () => {
    const schema = { type: 'object', properties: { q: { type: 'string' }, extra: { type: 'string' } }, required: ['q'] };
    expect(sampleValue(simTypeFromSchema(schema), 'weather in Paris')).toEqual({ q: 'weather in Paris' });
  });
});
