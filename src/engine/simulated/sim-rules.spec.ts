import { reply, type SimConversation } from './sim-rules';

const base: SimConversation = { lastRole: 'user', userText: 'Hello there', functionTools: [], browser: false, python: false };
const weather = {
  name: 'get_weather',
  params: { kind: 'object' as const, properties: [{ name: 'city', type: { kind: 'string' as const }, required: true }] },
};
const time = { name: 'get_time' };

describe('simulated answering rules', () => {
  it('answers a plain user message with reasoning then a final answer quoting it', () => {
    expect(reply(base)).toEqual([
      { channel: 'analysis', content: 'The user wrote: "Hello there". I will answer.', end: 'end' },
      { channel: 'final', content: 'You said: Hello there', end: 'return' },
    ]);
  });

  it('calls the first function with arguments that fit its parameters', () => {
    const [thought, call] = reply({ ...base, userText: 'Weather for "Oslo" please', functionTools: [weather, time] });
    expect(thought!.channel).toBe('analysis');
    expect(call).toEqual({
      channel: 'commentary',
      recipient: 'functions.get_weather',
      contentType: '<|constrain|>json',
      content: '{"city":"Oslo"}',
      end: 'call',
    });
  });

  it('calls the function named in the user text', () => {
    const messages = reply({ ...base, userText: 'use get_time now', functionTools: [weather, time] });
    expect(messages[1]).toMatchObject({ recipient: 'functions.get_time', content: '{}', end: 'call' });
  });

  it('answers a tool result with a final answer that uses the output', () => {
    const messages = reply({ ...base, lastRole: 'tool', functionTools: [weather], toolResult: { name: 'functions.get_weather', output: '{"temp":21}' } });
    expect(messages.at(-1)).toEqual({ channel: 'final', content: 'Result from functions.get_weather: {"temp":21}', end: 'return' });
  });

  it('searches with the browser when offered and asked to', () => {
    const messages = reply({ ...base, browser: true, userText: 'Please search the web for "harmony format"' });
    expect(messages[1]).toEqual({
      channel: 'analysis',
      recipient: 'browser.search',
      contentType: '<|constrain|>json',
      content: '{"query":"harmony format"}',
      end: 'call',
    });
  });

  it('runs python when offered and asked to, using code between backticks', () => {
    const messages = reply({ ...base, python: true, userText: 'Run `print(6*7)` for me' });
    expect(messages[1]).toEqual({ channel: 'analysis', recipient: 'python', contentType: 'code', content: 'print(6*7)', end: 'call' });
  });

  it('does not use a builtin that was not offered', () => {
    expect(reply({ ...base, userText: 'search for cats' }).at(-1)!.channel).toBe('final');
  });

  it('never calls a tool when tool_choice is none, and calls the forced one when named', () => {
    expect(reply({ ...base, functionTools: [weather], toolChoice: 'none' }).at(-1)!.end).toBe('return');
    expect(reply({ ...base, functionTools: [weather, time], toolChoice: { name: 'get_time' } })[1]!.recipient).toBe('functions.get_time');
  });

  it('answers with JSON that fits a structured-output schema', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' }, n: { type: 'integer' } }, required: ['answer', 'n'] };
    const final = reply(base, { structuredOutput: { schema } }).at(-1)!;
    expect(JSON.parse(final.content)).toEqual({ answer: 'You said: Hello there', n: 1 });
  });

  it('is deterministic', () => {
    const conversation = { ...base, functionTools: [weather], userText: 'weather?' };
    expect(reply(conversation)).toEqual(reply(conversation));
  });
});
