// Drives Warden through the official TypeScript ACP SDK (`@agentclientprotocol/sdk` on npm).
//
// SDK 2.x replaced the old `ClientSideConnection` class with its app API: `client()` registers
// the client-side handlers, `connect(ndJsonStream(...))` binds them to the spawned agent's
// stdio, and `connection.agent.request(...)` calls the agent. Each scenario passes an `answer`
// function that decides what the "user" says to a permission request.
//
// Everything the agent sends is recorded twice: typed, through the SDK's handlers (whose
// params the SDK validates against the ACP schema before they run), and raw, through a tap on
// the message stream (for JSON-RPC ids and `$/cancel_request`).

import { spawn } from "node:child_process";
import { openSync, closeSync, accessSync, constants, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";

import { client, ndJsonStream, PROTOCOL_VERSION, RequestError } from "@agentclientprotocol/sdk";

// Every wait is bounded, so a Warden that hangs fails the test instead of the CI job.
export const TURN_TIMEOUT_MS = 20_000;

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The binary under test: `$WARDEN_BIN`, else `target/debug/warden` of this repository. */
export function wardenBin() {
  let path = process.env.WARDEN_BIN ?? join(REPO_ROOT, "target", "debug", "warden");
  if (!isAbsolute(path)) path = join(REPO_ROOT, path);
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(`warden binary not found or not executable: ${path} (set WARDEN_BIN)`);
  }
  return path;
}

/** Rejects with a clear message when `promise` takes longer than `ms`. */
export function within(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The response that picks `optionId`, with an optional `_meta` object. */
export function selected(optionId, meta) {
  const response = { outcome: { outcome: "selected", optionId } };
  if (meta !== undefined) response._meta = meta;
  return response;
}

/** The `cancelled` outcome, which the spec requires for requests pending at a cancel. */
export function cancelled() {
  return { outcome: { outcome: "cancelled" } };
}

/** An answer that picks the same option for every request. */
export const always = (optionId, meta) => () => selected(optionId, meta);

/** An answer that picks an option by the terminal command of the call. */
export const byCommand = (choices) => (ctx) => selected(choices[ctx.params.toolCall.rawInput.command]);

/** An answer for scenarios that must not ask: the request is recorded and refused. */
export const neverAsked = () => () => selected("reject-once");

/**
 * Never answers by itself; answers `cancelled` when the agent withdraws the request with
 * `$/cancel_request`, which the SDK surfaces as the handler's abort signal.
 */
export function untilWithdrawn(ctx, recorder) {
  return new Promise((resolvePromise) => {
    const callId = ctx.params.toolCall.toolCallId;
    recorder.pending.set(callId, resolvePromise);
    const onAbort = () => {
      recorder.aborted.push({ callId, reason: ctx.signal.reason });
      resolvePromise(cancelled());
    };
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Records what the agent sends and answers permission requests. */
export class Recorder {
  constructor(answer) {
    this.answer = answer;
    this.updates = [];
    this.permissionRequests = [];
    this.rawIn = [];
    this.rawOut = [];
    // Resolvers of permission requests still open, by tool call id.
    this.pending = new Map();
    // Permission requests whose abort signal fired, with the signal's reason.
    this.aborted = [];
    this.askedWaiters = [];
    // Calls of the editor methods, as [method, params], in order.
    this.editorCalls = [];
    this.terminals = new Map();
  }

  // The editor's file system and terminals, registered only with `{ editor: true }`. They
  // act on the real disk, so a scenario checks the effect as for local tools.

  writeTextFile({ path, content }) {
    this.editorCalls.push(["fs/write_text_file", { path, content }]);
    writeFileSync(path, content);
    return {};
  }

  readTextFile({ path, line, limit }) {
    this.editorCalls.push(["fs/read_text_file", { path }]);
    let text;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      if (error.code === "ENOENT") throw RequestError.resourceNotFound(path);
      throw error;
    }
    const lines = text.split(/(?<=\n)/);
    const start = (line ?? 1) - 1;
    return { content: lines.slice(start, limit == null ? undefined : start + limit).join("") };
  }

  createTerminal({ command, args = [], cwd }) {
    this.editorCalls.push(["terminal/create", { command, args, cwd }]);
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    const terminal = { child, output: "", exit: null };
    child.stdout.on("data", (chunk) => (terminal.output += chunk));
    child.stderr.on("data", (chunk) => (terminal.output += chunk));
    terminal.exited = new Promise((resolveExit) =>
      child.once("close", (code, signal) => {
        terminal.exit = { exitCode: code, signal };
        resolveExit(terminal.exit);
      }),
    );
    const terminalId = `term-${this.terminals.size + 1}`;
    this.terminals.set(terminalId, terminal);
    return { terminalId };
  }

  async waitForTerminalExit({ terminalId }) {
    this.editorCalls.push(["terminal/wait_for_exit", { terminalId }]);
    return this.terminals.get(terminalId).exited;
  }

  terminalOutput({ terminalId }) {
    this.editorCalls.push(["terminal/output", { terminalId }]);
    const terminal = this.terminals.get(terminalId);
    const response = { output: terminal.output, truncated: false };
    if (terminal.exit) response.exitStatus = terminal.exit;
    return response;
  }

  killTerminal({ terminalId }) {
    this.editorCalls.push(["terminal/kill", { terminalId }]);
    const terminal = this.terminals.get(terminalId);
    if (!terminal.exit) terminal.child.kill("SIGKILL");
    return {};
  }

  async releaseTerminal({ terminalId }) {
    this.editorCalls.push(["terminal/release", { terminalId }]);
    const terminal = this.terminals.get(terminalId);
    if (!terminal.exit) terminal.child.kill("SIGKILL");
    await terminal.exited;
    return {};
  }

  async onPermission(ctx) {
    this.permissionRequests.push({ ...ctx.params, jsonrpcId: ctx.requestId });
    for (const wake of this.askedWaiters.splice(0)) wake();
    return this.answer(ctx, this);
  }

  /** Resolves once a permission request has arrived (now or later). */
  asked(count = 1) {
    if (this.permissionRequests.length >= count) return Promise.resolve();
    return new Promise((wake) => this.askedWaiters.push(wake)).then(() => this.asked(count));
  }

  answerAllPending(response) {
    for (const resolvePending of this.pending.values()) resolvePending(response);
    this.pending.clear();
  }

  cancelRequestsReceived() {
    return this.rawIn.filter((m) => m.method === "$/cancel_request");
  }

  /** JSON-RPC ids of the permission requests received. */
  permissionRequestIds() {
    return new Set(this.rawIn.filter((m) => m.method === "session/request_permission").map((m) => m.id));
  }
}

/** What one `session/prompt` produced. */
export class Turn {
  constructor(stopReason, updates, permissionRequests) {
    this.stopReason = stopReason;
    this.updates = updates;
    this.permissionRequests = permissionRequests;
  }

  /** Each tool call's statuses in order; a `tool_call` without one counts as `pending`. */
  statuses() {
    const out = {};
    for (const u of this.updates) {
      if (u.sessionUpdate === "tool_call") (out[u.toolCallId] ??= []).push(u.status ?? "pending");
      else if (u.sessionUpdate === "tool_call_update" && u.status) (out[u.toolCallId] ??= []).push(u.status);
    }
    return out;
  }

  finalStatus(callId) {
    return this.statuses()[callId].at(-1);
  }

  callIds() {
    return this.updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.toolCallId);
  }

  /** The agent's reply text of this turn. */
  message() {
    return this.updates
      .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
      .map((u) => u.content.text)
      .join("");
  }
}

/** A stream whose messages are also copied into `sink`. */
function tap(sink) {
  return new TransformStream({
    transform(message, controller) {
      sink.push(structuredClone(message));
      controller.enqueue(message);
    },
  });
}

/** One running Warden process and the SDK connection to it. */
export class Warden {
  /**
   * Starts Warden with `home` as WARDEN_HOME and an empty managed policy, and initializes it.
   * With `editor`, the client advertises its file system and terminals, and Warden's file
   * tools and commands go through it instead of running locally.
   */
  static async start(home, answer, { editor = false } = {}) {
    const stderr = openSync(join(home, "warden-stderr.log"), "a");
    // Only Warden's own variables and the basics reach the process, so nothing of the
    // developer's configuration leaks in.
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      WARDEN_HOME: home,
      WARDEN_MANAGED_POLICY: join(home, "no-managed-policy.toml"),
      WARDEN_MODEL: "scripted",
      RUST_LOG: "warn",
    };
    const child = spawn(wardenBin(), ["acp"], { env, stdio: ["pipe", "pipe", stderr] });
    closeSync(stderr);
    const exited = new Promise((resolveExit) => child.once("exit", (code, signal) => resolveExit({ code, signal })));

    const recorder = new Recorder(answer);
    const wire = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
    const out = tap(recorder.rawOut);
    out.readable.pipeTo(wire.writable).catch(() => {});
    const stream = { readable: wire.readable.pipeThrough(tap(recorder.rawIn)), writable: out.writable };

    const app = client({ name: "warden-interop-ts" })
      .onRequest("session/request_permission", (ctx) => recorder.onPermission(ctx))
      .onNotification("session/update", (ctx) => {
        recorder.updates.push(ctx.params.update);
      });
    if (editor) {
      app
        .onRequest("fs/write_text_file", (ctx) => recorder.writeTextFile(ctx.params))
        .onRequest("fs/read_text_file", (ctx) => recorder.readTextFile(ctx.params))
        .onRequest("terminal/create", (ctx) => recorder.createTerminal(ctx.params))
        .onRequest("terminal/output", (ctx) => recorder.terminalOutput(ctx.params))
        .onRequest("terminal/wait_for_exit", (ctx) => recorder.waitForTerminalExit(ctx.params))
        .onRequest("terminal/kill", (ctx) => recorder.killTerminal(ctx.params))
        .onRequest("terminal/release", (ctx) => recorder.releaseTerminal(ctx.params));
    }
    const connection = app.connect(stream);
    const initialize = await within(
      connection.agent.request("initialize", {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: editor, writeTextFile: editor }, terminal: editor },
        clientInfo: { name: "warden-interop-ts", version: "0" },
      }),
      TURN_TIMEOUT_MS,
      "initialize",
    );
    return new Warden(child, exited, connection, recorder, initialize);
  }

  constructor(child, exited, connection, recorder, initialize) {
    this.child = child;
    this.exited = exited;
    this.connection = connection;
    this.agent = connection.agent;
    this.recorder = recorder;
    this.initialize = initialize;
  }

  async newSession(cwd, mcpServers = []) {
    const response = await within(this.agent.request("session/new", { cwd, mcpServers }), TURN_TIMEOUT_MS, "session/new");
    return response.sessionId;
  }

  async setMode(sessionId, modeId) {
    await within(this.agent.request("session/set_mode", { sessionId, modeId }), TURN_TIMEOUT_MS, "session/set_mode");
  }

  /** Sends one prompt and returns what the turn produced once it has ended. */
  async prompt(sessionId, text) {
    const updatesBefore = this.recorder.updates.length;
    const asksBefore = this.recorder.permissionRequests.length;
    const response = await within(
      this.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }),
      TURN_TIMEOUT_MS,
      "session/prompt",
    );
    return new Turn(
      response.stopReason,
      this.recorder.updates.slice(updatesBefore),
      this.recorder.permissionRequests.slice(asksBefore),
    );
  }

  cancel(sessionId) {
    return this.agent.notify("session/cancel", { sessionId });
  }

  /** Closes stdin and waits for the process to exit; kills it if it does not. */
  async stop() {
    this.connection.close();
    this.child.stdin.end();
    let exit;
    try {
      exit = await within(this.exited, 5_000, "warden to exit after stdin closed");
    } catch (error) {
      this.child.kill("SIGKILL");
      await this.exited;
      throw error;
    }
    if (exit.code !== 0) {
      throw new Error(`warden exited with ${JSON.stringify(exit)} after its stdin closed`);
    }
  }
}

/** Runs `op` against a fresh Warden process and always stops the process afterwards. */
export async function withWarden(home, answer, op, options) {
  const warden = await Warden.start(home, answer, options);
  let result;
  try {
    result = await op(warden);
  } catch (error) {
    // The scenario's own failure matters more than a failure to stop afterwards.
    await warden.stop().catch(() => {});
    throw error;
  }
  // Warden must exit by itself once its stdin closes; a hang here fails the scenario.
  await warden.stop();
  return result;
}
