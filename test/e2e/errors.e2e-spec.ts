import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { deleteKeys, testPrefix } from '../support/redis';
import { startTestApp, type TestApp } from '../support/app';

// A route with a nested DTO, to exercise the global validation pipe and error filter end to end.
class ProbeItemDto {
  @IsIn(['user', 'assistant'])
  role!: string;

  @IsString()
  content!: string;
}

class ProbeDto {
  @IsString()
  model!: string;

  @IsOptional() @IsInt() @Min(1) @Max(10)
  n?: number;

  @IsArray() @ValidateNested({ each: true }) @Type(() => ProbeItemDto)
  input!: ProbeItemDto[];
}

@Controller('probe')
class ProbeController {
  @Post()
  echo(@Body() body: ProbeDto): ProbeDto {
    return body;
  }

  @Get('boom')
  boom(): never {
    throw new Error('secret internals at /srv/app.ts:42');
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

const prefix = testPrefix('errors');
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ KEY_PREFIX: prefix, BODY_LIMIT_BYTES: '4096' }, { imports: [ProbeModule] });
});
afterAll(async () => {
  await t.close();
  await deleteKeys(prefix);
});

async function post(body: string, contentType: string | null = 'application/json'): Promise<{ status: number; json: unknown; headers: Headers }> {
  const response = await fetch(`${t.url}/probe`, {
    method: 'POST',
    headers: contentType ? { 'content-type': contentType } : {},
    body,
  });
  return { status: response.status, json: await response.json(), headers: response.headers };
}

const envelope = (message: string | RegExp, param: string | null, code: string | null, type = 'invalid_request_error') => ({
  error: { message: typeof message === 'string' ? message : expect.stringMatching(message), type, param, code },
});

describe('errors are OpenAI-shaped', () => {
  it('accepts a valid body', async () => {
    const { status, json } = await post(JSON.stringify({ model: 'm', input: [{ role: 'user', content: 'hi' }] }));
    expect(status).toBe(201);
    expect(json).toEqual({ model: 'm', input: [{ role: 'user', content: 'hi' }] });
  });

  it.each([
    ['a nested invalid value', { model: 'm', input: [{ role: 'user', content: 'a' }, { role: 'robot', content: 'b' }] }, 'input.1.role', 'invalid_value'],
    ['a missing top-level field', { input: [] }, 'model', 'missing_required_parameter'],
    ['a missing nested field', { model: 'm', input: [{ role: 'user' }] }, 'input.0.content', 'missing_required_parameter'],
    ['a wrong type', { model: 42, input: [] }, 'model', 'invalid_type'],
    ['an out-of-range number', { model: 'm', n: 11, input: [] }, 'n', 'invalid_value'],
    ['an unknown top-level field', { model: 'm', input: [], colour: 'red' }, 'colour', 'unknown_parameter'],
    ['an unknown nested field', { model: 'm', input: [{ role: 'user', content: 'a', extra: 1 }] }, 'input.0.extra', 'unknown_parameter'],
  ])('400 for %s with the JSON path as param', async (_name, body, param, code) => {
    const { status, json } = await post(JSON.stringify(body));
    expect(status).toBe(400);
    expect(json).toEqual(envelope(/./, param, code));
    expect((json as { error: { message: string } }).error.message).toContain(param);
  });

  it('400 for malformed JSON', async () => {
    const { status, json } = await post('{"model": "m",');
    expect(status).toBe(400);
    expect(json).toEqual(envelope(/could not parse the JSON body/, null, 'invalid_json'));
  });

  it('400 for an empty JSON body', async () => {
    const { status, json } = await post('');
    expect(status).toBe(400);
    expect(json).toEqual(envelope(/body is empty/, null, 'invalid_json'));
  });

  it.each([['text/plain'], ['application/xml'], ['application/x-www-form-urlencoded']])('415 for content type %s', async (type) => {
    const { status, json } = await post('model=m', type);
    expect(status).toBe(415);
    expect(json).toEqual(envelope(new RegExp(`Unsupported Content-Type '${type}'`), null, 'unsupported_media_type'));
  });

  it('415 for a body without a content type', async () => {
    const { status, json } = await post('{"model":"m"}', null);
    expect(status).toBe(415);
    expect(json).toEqual(envelope(/Unsupported Content-Type/, null, 'unsupported_media_type'));
  });

  it('413 for a body over the limit', async () => {
    const { status, json } = await post(JSON.stringify({ model: 'x'.repeat(5000), input: [] }));
    expect(status).toBe(413);
    expect(json).toEqual(envelope('The request body exceeds the limit of 4096 bytes.', null, 'request_too_large'));
  });

  it.each([
    ['GET', '/v1/nothing-here'],
    ['POST', '/v1/responses/x/y/z'],
    ['DELETE', '/health/live'],
  ])('404 for %s %s', async (method, path) => {
    const response = await fetch(`${t.url}${path}`, { method });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual(envelope(`Invalid URL (${method} ${path})`, null, 'invalid_url'));
  });

  it('500 without leaking the stack or the message', async () => {
    const response = await fetch(`${t.url}/probe/boom`);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual(
      envelope('The server had an error while processing your request. Sorry about that!', null, 'server_error', 'server_error'),
    );
    expect(text).not.toMatch(/secret|srv|\.ts/);
  });

  it('echoes a client request id, or makes one', async () => {
    const given = await fetch(`${t.url}/health/live`, { headers: { 'x-request-id': 'trace-123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-123');
    const made = await fetch(`${t.url}/health/live`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
    const error = await post('{');
    expect(error.headers.get('x-request-id')).toMatch(/^req_/);
  });
});
