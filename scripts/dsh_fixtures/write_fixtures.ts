/**
 * Writes ctxlab's dsh session fixtures with DeepSeek-Harness's own code (tag dsh-v0.1.1-rc.2):
 * its Session API and JSONL persistence backend, its compaction region transaction and
 * range selection, its token meter. The model turns are scripted (no model is called); the
 * summary of the manual compaction is scripted too. Beside each session.jsonl it writes
 * surface.json: what dsh itself folds (surface seqs, roles, texts, prices).
 *
 * Usage (bundled by build.mjs, see README.md): node fixtures.mjs <out-dir>
 * or, to read a file with dsh's resume path and print its fold: node fixtures.mjs - --check <file> <session-id>
 */
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { SessionId, deriveEventMessage } from '@deepseek-ai/dsh-session'
import type { Session } from '@deepseek-ai/dsh-session'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'
import { logPath } from '../packages/session/session-persistence-jsonl/src/format.ts'
import TokenMeter from '@deepseek-ai/dsh-token-meter'
import { estimateMessage } from '../packages/llm/token-meter/src/estimate.ts'
import { createAssistantMessage, createToolResultMessage, createUserMessage, CallId } from '@deepseek-ai/dsh-llm'
import { compactSurfaceRegion, selectCompactableRange } from '../packages/compaction/compaction-basic/src/region.ts'
import { copyFile, mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const CONFIG = { provider: 'deepseek', model: 'deepseek-v4-flash' }
const TOOLS = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'list_dir', description: 'List a folder', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
]
const SYSTEM = 'You are a careful coding assistant.'

function header(session: Session, reason: 'initial' | 'resume' | 'change'): void {
  session.append('request/header', { header: { config: CONFIG, system: SYSTEM, tools: TOOLS }, reason })
}

function user(session: Session, text: string): void {
  session.append('user/message', createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }), { surfaceOp: 'append' })
}

function assistant(session: Session, turn: number, step: number, content: any[], usage?: any): void {
  const chunks: number[] = []
  content.forEach((block, index) => {
    if (block.type === 'text' || block.type === 'reasoning') {
      // a few stream deltas per block, as the loop records them (packed on disk)
      const parts = [block.text.slice(0, 5), block.text.slice(5, 12), block.text.slice(12)]
      for (const text of parts) {
        const e = session.append('assistant/chunk', { turn, step, chunk: { type: block.type === 'text' ? 'text-delta' : 'reasoning-delta', index, text } })
        chunks.push(e.seq)
      }
    }
  })
  const message = createAssistantMessage({ content, source: CONFIG })
  session.append('assistant/message', { turn, step, message, ...usage ? { usage } : {} }, { surfaceOp: 'append', sourceEventSeqs: chunks })
}

function toolCall(session: Session, turn: number, step: number, id: string, name: string, args: string): void {
  session.append('tool/call', { turn, step, callId: CallId(id), name, arguments: args })
}

function toolResult(session: Session, turn: number, step: number, id: string, text: string, callSeq: number): void {
  const message = createToolResultMessage({ callId: CallId(id), content: [{ type: 'text', text }], isError: false })
  session.append('tool/result', { turn, step, message }, { surfaceOp: 'append', sourceEventSeqs: [callSeq] })
}

function firstTurn(session: Session): void {
  session.append('turn/start', { turn: 1 })
  user(session, 'Find the port the server listens on in config/server.toml and tell me.')
  session.append('step/start', { turn: 1, step: 1 })
  header(session, 'initial')
  assistant(session, 1, 1, [
    { type: 'reasoning', text: 'The user wants the port; read the config file and list the folder.' },
    { type: 'text', text: 'Let me look at the configuration.' },
    { type: 'tool-call', id: 'call_read', name: 'read_file', arguments: '{"path":"config/server.toml"}' },
    { type: 'tool-call', id: 'call_list', name: 'list_dir', arguments: '{"path":"config"}' },
  ], { inputTokens: 120, outputTokens: 60, cacheReadTokens: 0, reasoningTokens: 20 })
  toolCall(session, 1, 1, 'call_read', 'read_file', '{"path":"config/server.toml"}')
  const readSeq = session.events.length - 1
  toolCall(session, 1, 1, 'call_list', 'list_dir', '{"path":"config"}')
  const listSeq = session.events.length - 1
  // answered out of order: the second call's result lands first
  toolResult(session, 1, 1, 'call_list', 'server.toml\nlogging.toml', listSeq)
  toolResult(session, 1, 1, 'call_read', '[server]\nhost = "0.0.0.0"\nport = 8443\n', readSeq)
  session.append('step/end', { turn: 1, step: 1 })
  session.append('step/start', { turn: 1, step: 2 })
  // an empty assistant message: it only hosts a step's usage (dsh derives no message from it)
  session.append('assistant/message', { turn: 1, step: 2, message: createAssistantMessage({ content: [], source: CONFIG }), usage: { inputTokens: 200, outputTokens: 0 } }, { surfaceOp: 'append', sourceEventSeqs: [] })
  session.append('step/end', { turn: 1, step: 2 })
  session.append('step/start', { turn: 1, step: 3 })
  assistant(session, 1, 3, [
    { type: 'reasoning', text: 'The file says port = 8443.' },
    { type: 'text', text: 'The server listens on port 8443 (config/server.toml, [server] section).' },
  ], { inputTokens: 260, outputTokens: 30, cacheReadTokens: 128 })
  session.append('step/end', { turn: 1, step: 3 })
  session.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
}

function secondTurn(session: Session, turn: number): void {
  session.append('turn/start', { turn })
  user(session, 'And which file configures logging?')
  session.append('step/start', { turn, step: 1 })
  assistant(session, turn, 1, [{ type: 'text', text: 'Logging is configured in config/logging.toml.' }], { inputTokens: 300, outputTokens: 12 })
  session.append('step/end', { turn, step: 1 })
  session.append('turn/end', { turn, reason: { kind: 'completed' } })
}

async function manualCompaction(ctx: Context, session: Session): Promise<void> {
  const meter = ctx.tokenMeter
  const range = selectCompactableRange(session, meter.measure(session), 0)
  if (range === null) throw new Error('nothing to compact')
  const dependencies = {
    meter,
    // scripted summary (no model call), named as such in the fixture README
    async summarize() {
      const text = '## Primary Request and Intent\n- find the server port\n## Current Work\n- port 8443 found in config/server.toml'
      return { summary: [{ type: 'text' as const, text }], provider: 'scripted', model: 'scripted-summary', maxTokens: 8192, rawOutput: [{ type: 'text' as const, text }] }
    },
  }
  await compactSurfaceRegion(dependencies as any, session, range.start, range.end, {} as any, { owner: null, stability: 'selected-span' })
}

function surfaceOf(ctx: Context, session: Session): unknown {
  const measurement = ctx.tokenMeter.measure(session)
  const prices = new Map(measurement.nodes.map(n => [n.seq, n.tokens]))
  const nodes = session.surface.nodes.map((seq) => {
    const event = session.events[seq]!
    const message = deriveEventMessage(event)
    return {
      seq,
      type: event.type,
      role: message === null ? null : message.role,
      derived: message !== null,
      texts: message === null ? [] : message.content.map((b: any) => b.type === 'tool-result' ? { type: b.type, toolCallId: b.toolCallId, texts: b.content.map((c: any) => c.text) } : b.type === 'tool-call' ? { type: b.type, id: b.id, name: b.name, arguments: b.arguments } : { type: b.type, text: b.text }),
      price: prices.get(seq),
      estimate: message === null ? 0 : estimateMessage(message),
    }
  })
  return {
    nodes,
    replaceGeneration: session.surface.replaceGeneration,
    surfaceTokens: measurement.surfaceTokens,
    totalTokens: measurement.totalTokens,
    baseline: measurement.baseline.kind,
    compactions: session.events.filter(e => e.type.startsWith('compaction/')).map(e => ({ seq: e.seq, type: e.type, data: e.data })),
    eventTypes: session.events.map(e => e.type),
  }
}

function publish(ctx: Context, session: Session): Session {
  ctx.sessions.enter(session)
  ctx.sessions.announce(session)
  return session
}

async function mount(root: string): Promise<{ ctx: Context; dispose: () => Promise<void> }> {
  const ctx = new Context()
  await ctx.plugin(SessionStore)
  await ctx.plugin(TokenMeter)
  const fiber = await ctx.plugin(JsonlSessionPersistence, { root, compression: 'none' })
  return { ctx, dispose: async () => { await fiber.dispose() } }
}

async function write(out: string, name: string, build: (ctx: Context, s: Session) => Promise<void>, resumeWith?: (ctx: Context, s: Session) => Promise<void>): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'dsh-fixture-'))
  const id = SessionId(`fixture-${name}`)
  let { ctx, dispose } = await mount(root)
  let session = ctx.sessions.create(id, { meta: { createdAt: 1767225600000 } })
  await build(ctx, session)
  await ctx.sessions.flush(session)
  if (resumeWith !== undefined) {
    await dispose()
    ;({ ctx, dispose } = await mount(root))
    const prepared = await ctx.sessionPersistence.prepare(id)
    session = publish(ctx, prepared.session)
    await resumeWith(ctx, session)
    await ctx.sessions.flush(session)
  }
  const folder = join(out, name)
  await mkdir(folder, { recursive: true })
  await copyFile(logPath(root, undefined, id), join(folder, 'session.jsonl'))
  await writeFile(join(folder, 'surface.json'), JSON.stringify(surfaceOf(ctx, session), null, 1) + '\n')
  await dispose()
}

/** Load a JSONL file with dsh's own reader (resume path) and print what it folds. */
async function check(file: string, idText: string): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'dsh-check-'))
  const id = SessionId(idText)
  const target = logPath(root, undefined, id)
  await mkdir(join(target, '..'), { recursive: true })
  await copyFile(file, target)
  const { ctx, dispose } = await mount(root)
  const prepared = await ctx.sessionPersistence.prepare(id)
  const session = publish(ctx, prepared.session)
  console.log(JSON.stringify(surfaceOf(ctx, session), null, 1))
  await dispose()
}

const [out, flag, file, idText] = process.argv.slice(2)
if (flag === '--check') {
  await check(file!, idText!)
} else {
  await write(out!, 'one-turn', async (_ctx, s) => firstTurn(s))
  await write(out!, 'compacted', async (ctx, s) => { firstTurn(s); await manualCompaction(ctx, s) })
  await write(out!, 'two-turns-resumed', async (ctx, s) => { firstTurn(s); await manualCompaction(ctx, s) }, async (_ctx, s) => { header(s, 'resume'); secondTurn(s, 2) })
}
