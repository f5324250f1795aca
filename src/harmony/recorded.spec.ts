import { readConformance } from '../../test/support/harmony-conformance';
import { renderConversationForCompletion } from './render';
import { CALL, END, RETURN, START } from './special-tokens';
import { StreamParser, parseMessagesFromCompletionTokens } from './stream-parser';
import { decodeTokens } from './token-decoder';
import type { HarmonyMessage, ParsedMessage } from './types';

interface DerivedParse {
  messages?: ParsedMessage[];
  error?: string;
  messages_before_error?: ParsedMessage[];
}

interface Turn {
  trial: number;
  turn: number;
  prompt_text: string;
  completion_text: string;
  completion_tokens_reencoded: number[];
  derived_parse_strict: DerivedParse;
}

const turns: Turn[] = readConformance('recorded/llamacpp-gpt-oss-20b-tool-calling.jsonl')
  .split('\n')
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line) as Turn);

const STOP_TEXT = /<\|(end|call|return)\|>/;

/**
 * Degenerate completions (documented in the conformance README): the model looped and its
 * completion starts with junk text instead of a header (`<|channel|>…` or ` to=…`). Strict
 * parsing fails on most of them, or swallows the junk into a header as a nonsense recipient.
 */
function isDegenerate(text: string): boolean {
  return !/^(<\|channel\|>|\s*to=)/.test(text);
}

/**
 * An oracle independent of the parser: a message's text is what follows a `<|message|>` up to the
 * next stop-token spelling (a header that never saw `<|message|>` yields no message).
 */
function messageTexts(completion: string): string[] {
  return completion
    .split('<|message|>')
    .slice(1)
    .map((body) => {
      const stop = STOP_TEXT.exec(body);
      return stop ? body.slice(0, stop.index) : body;
    });
}

function parseCatching(ids: readonly number[], strict: boolean): { messages: ParsedMessage[]; error?: string } {
  const parser = new StreamParser('assistant', strict);
  try {
    for (const id of ids) parser.process(id);
    parser.processEos();
    return { messages: parser.messages };
  } catch (error) {
    return { messages: parser.messages, error: (error as Error).message };
  }
}

function expectAsReference(result: { messages: ParsedMessage[]; error?: string }, reference: DerivedParse): void {
  if (reference.error !== undefined) {
    expect(result.error).toBe(reference.error);
    expect(result.messages).toEqual(reference.messages_before_error);
  } else {
    expect(result.error).toBeUndefined();
    expect(result.messages).toEqual(reference.messages);
  }
}

describe('recorded llama.cpp gpt-oss-20b turns', () => {
  it('has 2,000 turns', () => expect(turns).toHaveLength(2_000));

  it('strict mode parses every turn except the degenerate ones, exactly as the reference', () => {
    const degenerate: number[] = [];
    turns.forEach((turn, index) => {
      const result = parseCatching(turn.completion_tokens_reencoded, true);
      const expected = turn.derived_parse_strict;
      if (expected.error !== undefined) degenerate.push(index);
      expectAsReference(result, expected);
    });
    // Every failure is a documented degenerate completion; every well-formed one parses.
    const degenerateShape = turns.flatMap((turn, index) => (isDegenerate(turn.completion_text) ? [index] : []));
    expect(degenerate.every((index) => degenerateShape.includes(index))).toBe(true);
    expect(degenerate.length).toBeGreaterThan(0);
    expect(degenerateShape.length).toBeLessThan(10);
  });

  it('non-strict mode recovers the degenerate turns: the junk becomes a message, the rest parses', () => {
    for (const turn of turns.filter((t) => isDegenerate(t.completion_text))) {
      const ids = turn.completion_tokens_reencoded;
      const recovered = parseMessagesFromCompletionTokens(ids, 'assistant', false);
      const firstStop = ids.findIndex((id) => id === END || id === CALL || id === RETURN);
      const rest = ids.slice(firstStop + 1);
      const expectedRest = rest[0] === START ? parseMessagesFromCompletionTokens(rest, null, true) : [];
      expect(recovered.slice(1)).toEqual(expectedRest);
      expect(recovered[0]).toMatchObject({ role: 'assistant' });
      expect(recovered[0]!.content.length).toBeGreaterThan(0);
    }
  });

  it('gets every message text right (checked against the raw completion text)', () => {
    for (const turn of turns.filter((t) => !isDegenerate(t.completion_text))) {
      const parsed = parseMessagesFromCompletionTokens(turn.completion_tokens_reencoded, 'assistant', true);
      expect(parsed.map((m) => m.content)).toEqual(messageTexts(turn.completion_text));
      expect(decodeTokens(turn.completion_tokens_reencoded)).toBe(turn.completion_text);
      for (const message of parsed) {
        if (message.recipient?.startsWith('functions.')) expect(message.channel === 'commentary' || message.channel === 'analysis').toBe(true);
      }
    }
  });

  it('reproduces every first-turn prompt exactly from its messages', () => {
    const firstTurns = turns.filter((turn) => turn.turn === 1);
    expect(firstTurns.length).toBeGreaterThan(100);
    for (const turn of firstTurns) {
      const date = /Current date: ([^\n]*)/.exec(turn.prompt_text)![1]!;
      const user = /<\|start\|>user<\|message\|>([\s\S]*?)<\|end\|>/.exec(turn.prompt_text)![1]!;
      const messages: HarmonyMessage[] = [
        {
          role: 'system',
          content: [
            {
              type: 'system_content',
              model_identity: 'You are ChatGPT, a large language model trained by OpenAI.',
              reasoning_effort: 'medium',
              conversation_start_date: date,
              knowledge_cutoff: '2024-06',
              channel_config: { valid_channels: ['analysis', 'commentary', 'final'], channel_required: true },
            },
          ],
        },
        {
          role: 'developer',
          content: [
            {
              type: 'developer_content',
              tools: {
                functions: {
                  name: 'functions',
                  tools: [
                    {
                      name: 'get_weather',
                      description: 'Obtain the weather for a given city.',
                      parameters: { type: 'object', properties: { city: { type: 'string', description: 'City' } }, required: ['city'] },
                    },
                  ],
                },
              },
            },
          ],
        },
        { role: 'user', content: user },
      ];
      expect(decodeTokens(renderConversationForCompletion(messages, 'assistant').tokens)).toBe(turn.prompt_text);
    }
  });
});

describe('other recorded completions', () => {
  it('parses the greedy MLX gpt-oss-20b completions as the reference does', () => {
    const golden = JSON.parse(readConformance('recorded/golden-mlx-gpt-oss-20b.json')) as {
      completions: Array<{ completion_tokens: number[]; completion_text: string; derived_parse_strict: DerivedParse }>;
    };
    expect(golden.completions).toHaveLength(5);
    for (const completion of golden.completions) {
      expect(decodeTokens(completion.completion_tokens)).toBe(completion.completion_text);
      expect(parseCatching(completion.completion_tokens, true).messages).toEqual(completion.derived_parse_strict.messages);
    }
  });

  it('reproduces the GGUF engine prompt ids (empty date) and parses its completion', () => {
    const record = JSON.parse(readConformance('recorded/stingray-gguf-gpt-oss-20b.json')) as {
      prompt_tokens: number[];
      completion_tokens: number[];
      derived_parse_strict: DerivedParse;
    };
    const prompt = renderConversationForCompletion(
      [
        {
          role: 'system',
          content: [
            {
              type: 'system_content',
              model_identity: 'You are ChatGPT, a large language model trained by OpenAI.',
              reasoning_effort: 'medium',
              conversation_start_date: '',
              knowledge_cutoff: '2024-06',
              channel_config: { valid_channels: ['analysis', 'commentary', 'final'], channel_required: true },
            },
          ],
        },
        { role: 'user', content: /<\|start\|>user<\|message\|>(.*?)<\|end\|>/.exec(decodeTokens(record.prompt_tokens))![1]! },
      ],
      'assistant',
    );
    expect(prompt.tokens).toEqual(record.prompt_tokens);
    expect(parseCatching(record.completion_tokens, true).messages).toEqual(record.derived_parse_strict.messages);
  });

  it('parses the upstream fixtures strictly and non-strictly as the reference does', () => {
    const fixtures = JSON.parse(readConformance('recorded/fixtures-provenance-unknown.json')) as {
      items: Array<{ tokens: number[]; derived_parse_strict: DerivedParse; derived_parse_non_strict?: DerivedParse }>;
    };
    for (const item of fixtures.items) {
      expectAsReference(parseCatching(item.tokens, true), item.derived_parse_strict);
      if (item.derived_parse_non_strict) expectAsReference(parseCatching(item.tokens, false), item.derived_parse_non_strict);
    }
  });
});
