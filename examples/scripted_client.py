#!/usr/bin/env python3
"""A scripted JSON-RPC client for CI: drive Warden over stdio with no SDK.

It starts Warden, opens a session in the current folder, sends one prompt and answers
every permission request with the option you name (allow-once by default), printing
what the agent says. Exit status 0 when the prompt ends with `end_turn`.

    python3 examples/scripted_client.py '/call terminal {"command": "ls"}' --answer reject-once
"""

import argparse
import json
import os
import subprocess
import sys


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("prompt")
    parser.add_argument("--answer", default="allow-once")
    parser.add_argument("--warden", default=os.environ.get("WARDEN_BIN", "warden"))
    args = parser.parse_args()

    agent = subprocess.Popen(
        [args.warden, "acp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    next_id = 0

    def send(message):
        agent.stdin.write(json.dumps(message) + "\n")
        agent.stdin.flush()

    def request(method, params):
        nonlocal next_id
        next_id += 1
        send({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params})
        while True:
            line = agent.stdout.readline()
            if not line:
                raise SystemExit("warden closed its output")
            message = json.loads(line)
            if message.get("method") == "session/request_permission":
                title = message["params"]["toolCall"].get("title")
                print(f"? {title} -> {args.answer}", file=sys.stderr)
                send({"jsonrpc": "2.0", "id": message["id"],
                      "result": {"outcome": {"outcome": "selected", "optionId": args.answer}}})
            elif message.get("method") == "session/update":
                update = message["params"]["update"]
                if update["sessionUpdate"] == "agent_message_chunk":
                    print(update["content"].get("text", ""), end="")
            elif message.get("id") == next_id:
                if "error" in message:
                    raise SystemExit(f"{method} failed: {message['error']}")
                return message["result"]

    request("initialize", {"protocolVersion": 1})
    session = request("session/new", {"cwd": os.getcwd(), "mcpServers": []})["sessionId"]
    result = request("session/prompt", {"sessionId": session,
                                         "prompt": [{"type": "text", "text": args.prompt}]})
    print()
    agent.stdin.close()
    agent.wait()
    return 0 if result["stopReason"] == "end_turn" else 1


if __name__ == "__main__":
    sys.exit(main())
