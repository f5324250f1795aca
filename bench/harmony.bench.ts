/**
 * Harmony library speed, with baselines measured in the same run:
 * - streaming parse throughput (tokens/s on one core) over real gpt-oss completions, against a
 *   bare loop over the same ids and against gpt-tokenizer's decode of the same ids;
 * - render + encode of a ~32k-token conversation, against plain gpt-tokenizer encode of the same text.
 * Targets (issue): parse ≥ 3M tokens/s; render+encode of 32k tokens ≤ 10 ms.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { decode, encode } from 'gpt-tokenizer/encoding/o200k_harmony';
import { decodeTokens, renderConversationForCompletion, StreamParser, type HarmonyMessage } from '../src/harmony';

const RECORDED = resolve(__dirname, '../../shared/conformance/harmony/recorded/llamacpp-gpt-oss-20b-tool-calling.jsonl');

function time<T>(fn: () => T, repeats: number): { ms: number; result: T } {
  let best = Number.POSITIVE_INFINITY;
  let result!: T;
  for (let i = 0; i < repeats; i += 1) {
    const started = process.hrtime.bigint();
    result = fn();
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e6);
  }
  return { ms: best, result };
}

// Completions that parse cleanly as one stream each (real model output).
const completions = readFileSync(RECORDED, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as { completion_text: string; completion_tokens_reencoded: number[] })
  .filter((turn) => turn.completion_text.startsWith('<|channel|>'))
  .map((turn) => turn.completion_tokens_reencoded);
const totalTokens = completions.reduce((sum, ids) => sum + ids.length, 0);

function parseAll(): number {
  let messages = 0;
  for (const ids of completions) {
    const parser = new StreamParser('assistant', true);
    for (const id of ids) parser.process(id);
    parser.processEos();
    messages += parser.messages.length;
  }
  return messages;
}

function bareLoop(): number {
  let sum = 0;
  for (const ids of completions) for (const id of ids) sum = (sum + id) | 0;
  return sum;
}

function tokenizerDecode(): number {
  let chars = 0;
  for (const ids of completions) chars += decode(ids).length;
  return chars;
}

// A long agentic conversation: tools, several turns of reasoning, calls and results.
function conversation(targetTokens: number): HarmonyMessage[] {
  const paragraph =
    'The quarterly report shows revenue growth of 12% across the EMEA region, driven by subscription renewals; churn fell to 3.1% while support tickets per customer dropped. ';
  const messages: HarmonyMessage[] = [
    { role: 'system', content: [{ type: 'system_content', model_identity: 'You are ChatGPT, a large language model trained by OpenAI.', reasoning_effort: 'high', conversation_start_date: '2026-11-23', knowledge_cutoff: '2024-06', channel_config: { valid_channels: ['analysis', 'commentary', 'final'], channel_required: true } }] },
    {
      role: 'developer',
      content: [
        {
          type: 'developer_content',
          instructions: 'You are a careful financial analyst. Cite figures exactly.',
          tools: {
            functions: {
              name: 'functions',
              tools: [
                { name: 'get_report', description: 'Fetch a report by id.', parameters: { type: 'object', properties: { id: { type: 'string', description: 'Report id' }, region: { type: 'string', enum: ['emea', 'apac', 'amer'] } }, required: ['id'] } },
                { name: 'search', description: 'Search documents.', parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer', default: 10 } }, required: ['query'] } },
              ],
            },
          },
        },
      ],
    },
  ];
  let turn = 0;
  while (renderConversationForCompletion(messages, 'assistant').tokens.length < targetTokens) {
    turn += 1;
    messages.push(
      { role: 'user', content: `Question ${turn}: ${paragraph.repeat(3)}` },
      { role: 'assistant', channel: 'analysis', content: `Thinking about question ${turn}. ${paragraph.repeat(2)}` },
      { role: 'assistant', channel: 'commentary', recipient: 'functions.get_report', content_type: '<|constrain|>json', content: `{"id":"q${turn}","region":"emea"}` },
      { role: 'tool', name: 'functions.get_report', recipient: 'assistant', channel: 'commentary', content: paragraph.repeat(4) },
      { role: 'assistant', channel: 'final', content: `Answer ${turn}: ${paragraph.repeat(2)}` },
    );
  }
  return messages;
}

const messages = conversation(32_000);
const renderedText = decodeTokens(renderConversationForCompletion(messages, 'assistant').tokens);

// Warm up JITs and caches.
for (let i = 0; i < 5; i += 1) {
  parseAll();
  renderConversationForCompletion(messages, 'assistant');
}

const parse = time(parseAll, 15);
const bare = time(bareLoop, 15);
const tokDecode = time(tokenizerDecode, 15);
const rendered = time(() => renderConversationForCompletion(messages, 'assistant').tokens.length, 30);
const plain = time(() => encode(renderedText, { disallowedSpecial: new Set() }).length, 30);

const rate = (ms: number): string => `${((totalTokens / ms) * 1000 / 1e6).toFixed(2)}M tokens/s`;
console.log(`streaming parse: ${completions.length} real completions, ${totalTokens} tokens (best of 15)`);
console.log(`| what | time | throughput | ratio to parse |`);
console.log(`| --- | --- | --- | --- |`);
console.log(`| StreamParser (strict) | ${parse.ms.toFixed(2)} ms | ${rate(parse.ms)} | 1.00 |`);
console.log(`| bare loop over the ids | ${bare.ms.toFixed(2)} ms | ${rate(bare.ms)} | ${(bare.ms / parse.ms).toFixed(3)} |`);
console.log(`| gpt-tokenizer decode of the ids | ${tokDecode.ms.toFixed(2)} ms | ${rate(tokDecode.ms)} | ${(tokDecode.ms / parse.ms).toFixed(2)} |`);
console.log('');
console.log(`render + encode: ${messages.length} messages, ${rendered.result} tokens (best of 30)`);
console.log(`| what | time | ratio |`);
console.log(`| --- | --- | --- |`);
console.log(`| renderConversationForCompletion | ${rendered.ms.toFixed(2)} ms | 1.00 |`);
console.log(`| gpt-tokenizer encode of the same text | ${plain.ms.toFixed(2)} ms | ${(plain.ms / rendered.ms).toFixed(2)} |`);
