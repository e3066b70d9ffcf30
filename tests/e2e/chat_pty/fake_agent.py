"""A small ACP agent for `warden chat --agent` tests: what another agent sends.

Newline-delimited JSON-RPC on stdin/stdout. A prompt's text picks what it does:
- `stream`: a tool call that streams its output while it runs, then completes;
- `ask`: a permission request with the agent's own option names, no reject option and
  no risk, then says which option came back;
- `markdown`: a reply with a numbered list, a table and struck text;
- `later`: ends the turn, then a moment later asks outside any turn (as an agent
  resuming its own work does) and writes `asked.flag` in its folder once it has asked;
- `ping`: replies `pong`.
"""

import json
import sys
import time

SESSION = "fake_1"


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def update(body):
    send({"jsonrpc": "2.0", "method": "session/update",
          "params": {"sessionId": SESSION, "update": body}})


def text(words):
    return [{"type": "content", "content": {"type": "text", "text": words}}]


def read():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def answer(request_id):
    """Reads until the response to our request `request_id`, ignoring notifications."""
    while True:
        message = read()
        if message.get("id") == request_id and "method" not in message:
            return message


def stream():
    update({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Build",
            "kind": "execute", "status": "pending"})
    update({"sessionUpdate": "tool_call_update", "toolCallId": "t1",
            "status": "in_progress"})
    lines = []
    for i in range(1, 9):
        lines.append(f"step {i}")
        update({"sessionUpdate": "tool_call_update", "toolCallId": "t1",
                "content": text("\n".join(lines))})
        time.sleep(0.3)
    update({"sessionUpdate": "tool_call_update", "toolCallId": "t1",
            "status": "completed", "content": text("all 8 steps done")})


def ask(asked=lambda: None):
    update({"sessionUpdate": "tool_call", "toolCallId": "t2", "title": "Edit main.py",
            "kind": "edit", "status": "pending", "rawInput": {"path": "main.py"}})
    send({"jsonrpc": "2.0", "id": 900, "method": "session/request_permission",
          "params": {"sessionId": SESSION,
                     "toolCall": {"toolCallId": "t2", "rawInput": {"path": "main.py"}},
                     "options": [
                         {"optionId": "always", "name": "Yes, and don't ask again",
                          "kind": "allow_always"},
                         {"optionId": "once", "name": "Just this once",
                          "kind": "allow_once"}]}})
    asked()
    outcome = answer(900).get("result", {}).get("outcome", {})
    chosen = outcome.get("optionId", outcome.get("outcome"))
    update({"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": f"answered: {chosen}\n"}})


def markdown():
    reply = ("Steps:\n\n1. first\n2. second\n3. third\n\n"
             "| tool | what |\n|---|---|\n| ls | lists files |\n\n~~old~~ new\n")
    update({"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": reply}})


def later():
    """After the turn's answer: a request outside any turn, then what came back."""
    time.sleep(0.5)
    ask(lambda: open("asked.flag", "w").close())


def main():
    while True:
        message = read()
        method = message.get("method")
        if "id" not in message or method is None:
            continue
        result = {}
        if method == "initialize":
            result = {"protocolVersion": 1,
                      "agentCapabilities": {"loadSession": False},
                      "agentInfo": {"name": "fake-agent", "version": "1"},
                      "authMethods": []}
        elif method == "session/new":
            result = {"sessionId": SESSION}
        elif method == "session/prompt":
            words = " ".join(block.get("text", "")
                             for block in message["params"]["prompt"]).strip()
            if words == "later":
                send({"jsonrpc": "2.0", "id": message["id"],
                      "result": {"stopReason": "end_turn"}})
                later()
                continue
            if words == "ping":
                update({"sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": "pong\n"}})
            {"stream": stream, "ask": ask, "markdown": markdown}.get(words, lambda: None)()
            result = {"stopReason": "end_turn"}
        send({"jsonrpc": "2.0", "id": message["id"], "result": result})


main()
