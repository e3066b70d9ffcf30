## Warden: permission requests, option labels and their _meta.permission texts, notices, denial and timeout messages.
## Ids are kebab-case and start with the file's name; arguments are named ($tool, $path).
## Never translate what machines match: option ids, tool names, commands, paths, _meta keys.


## How risky a call is, as a person reads it before the reason.
agent-risk-low = Low
agent-risk-medium = Medium
agent-risk-high = High
agent-risk-critical = Critical
# The first line of a question's content: "Critical: recursively deletes your home folder".
agent-risk-line = { $risk }: { $reason }
# For a compound command, the part that decided; $part is the part, quoted as code.
agent-decided-by-part = Decided by the part { $part }.

## The question.
agent-question-mcp = Allow tool call from { $server }?
agent-question-builtin = { $title }?
agent-mcp-warning = Malicious MCP servers or conversation content could potentially trick Warden into attempting harmful actions through your installed tools.
agent-mcp-review = Review each action carefully before approving
# `_meta.permission.description` of a question: the risk line without Markdown.
agent-question-description = Risk { $risk }: { $reason }

## Option labels (plain text: clients show them as they are) and their descriptions.
agent-option-allow-once = Allow once
    .description = Runs this call now; the next one like it is asked again.
agent-option-allow-session-mcp = Allow for this chat
    .description = Runs this call, and calls of this tool for the rest of this chat, without asking.
agent-option-allow-session = Always allow { $grant } in this session
    .description = Runs this call, and { $grant } for the rest of this session, without asking.
agent-option-allow-session-exact = Allow this exact call for the rest of the session
    .description = Runs this call, and exactly this call again in this session, without asking.
agent-option-allow-project = Always allow { $grant } in this project
    .description = Runs this call and stores a grant: { $grant } in this project is allowed from now on.
agent-option-reject-once = Reject
    .description = Does not run this call; the model is told, and the turn goes on.
agent-option-reject-once-mcp = Deny
    .description = Does not run this call; the model is told, and the turn goes on.
agent-option-reject-and-stop = Reject and stop
    .description = Does not run this call, and stops the turn: nothing else of it runs.
agent-option-reject-project = Always reject { $grant } in this project
    .description = Does not run this call and stores a grant: { $grant } in this project is denied from now on.
agent-option-edit-or-note = Edit and approve, or deny with a note…
    .description = Opens a form to change the arguments before approving, or to tell the model why not.

## The form that approves with edits or denies with a note.
agent-form-message = { $title }: approve with edits, or deny with a note
agent-form-decision = Decision
agent-form-string = Edit to run the call with this value.
agent-form-json = JSON; edit to run the call with this value.
agent-form-note = Note
agent-form-note-description = On approval an instruction for the model, on denial the reason.

## What became of a call that did not run, as the person sees it.
agent-denied-by-user = You denied this call.
agent-denied-by-user-note = You denied this call: { $note }
agent-denied-by-policy = Denied by policy: { $reason }
agent-denied-by-policy-why = Denied by policy: { $reason }. { $why }
agent-denied-too-many = Denied without asking: too many permission requests in this turn (at most { $pending } waiting at once and { $asks } per turn). { $reason }
agent-timed-out = Timed out: nobody answered the permission request within { $seconds } s, so the call did not run. This is not a denial.
agent-timed-out-forever = Timed out: nobody answered the permission request, so the call did not run. This is not a denial.
agent-answer-failed = The permission request failed ({ $reason }), which counts as a denial: the call did not run.
agent-answer-not-offered = Treated as a denial: the client chose { $option }, which was not offered. The call did not run.
agent-edited-invalid = The edited input is invalid ({ $reason }); the call did not run.
agent-invalid-call = Invalid call: { $reason }
agent-cancelled = Cancelled: the turn was cancelled before this call finished.
agent-stopped-call = Not run: you stopped the turn before this call finished.

## What the turn says in the reply.
agent-stopped-turn = You stopped this turn: the call was denied, and nothing else of the turn ran.
agent-reply-incomplete = The model's reply ended before it was complete.
agent-model-failed = The model failed: { $error }
agent-request-limit = Stopping: this turn reached its limit of { $limit } model requests.

## Notices about stored answers.
agent-grant-stored-allow-session = Grant stored: { $what } is allowed for this session
agent-grant-stored-allow-project = Grant stored: { $what } is allowed in this project
agent-grant-stored-deny-session = Grant stored: { $what } is denied for this session
agent-grant-stored-deny-project = Grant stored: { $what } is denied in this project
agent-grant-stored-detail = `/grants` lists what is stored, `/revoke ID` removes it.
agent-grant-not-stored = The grant was not stored: { $what } will be asked about again
agent-this-exact-call = this exact call

## What a call's preview says when it shows no diff.
agent-preview-write-unread = Writes the whole of { $path }; its current content was not read, so no diff is shown.
agent-preview-write-folder = { $path } is a folder; the write will fail.
agent-preview-write-hidden = Replaces the whole of { $path }, whose current content is not shown ({ $why }).
agent-preview-delete-folder = Deletes the folder { $path } with { $more ->
        [yes] more than { $total }
       *[no] { $total }
    } { $total ->
        [one] entry
       *[other] entries
    }{ $first }.
agent-preview-delete-missing = { $path } does not exist.
agent-preview-delete-unread = Deletes { $path }; its content was not read, so it is not shown.
agent-preview-delete-hidden = Deletes { $path }, whose content is not shown ({ $why }).

## Notices a session gives when it starts.
agent-notice-policy-unusable = A policy file could not be used, so calls it would allow ask instead
agent-notice-policy-unusable-detail = { $file }: { $error }. Fix it, then check it with `warden policy lint`.
agent-notice-grants-unreadable = The stored grants could not all be read, so calls they would allow ask instead
agent-notice-journal-damaged = Part of the stored session could not be read
agent-notice-journal-damaged-detail = { $lines } line(s) of its journal were damaged and skipped; any call whose fate they held was not run again.
agent-notice-mcp-tools-missing = Some tools of MCP server { $server } are not offered
agent-notice-mcp-not-started = MCP server { $server } was not started
agent-notice-mcp-not-started-detail = { $server }: { $error }. The session runs without its tools.
agent-notice-sandbox-off = Commands run without a sandbox: confinement is turned off
agent-notice-sandbox-off-detail = `[sandbox] enabled = false` in your policy: commands the engine allows can reach your whole home folder, your keys and the network. Remove it to confine them again.
agent-notice-sandbox-missing = Commands cannot run in a sandbox here, so every command is asked
agent-notice-sandbox-missing-detail = Runs without a sandbox: { $why }. `warden doctor` says what this system supports.

## Warden's own slash commands.
agent-why-none = No call has been evaluated in this session yet.
agent-why-last = **Last call**: { $title }
agent-why-decision = **Decision**: { $decision }, risk { $risk }: { $reason }
agent-why-parts = **Parts**:
agent-why-part = - { $part }: { $decision }, risk { $risk }: { $reason }
agent-why-json = As `warden policy check` prints it (evaluated again now):
agent-grants-none = No grants apply here: calls are decided by the policy and the session mode { $mode }.
agent-grants-heading = **Grants that apply here** (mode { $mode }):
agent-grants-allow = allow
agent-grants-deny = deny
agent-grants-scope-session = for this session
agent-grants-scope-project = in this project
agent-grants-scope-user = everywhere
agent-grants-scope-once = once
agent-grants-line = - { $id }: { $effect } { $what } { $scope }, up to { $risk } risk (granted in { $client } on { $at })
agent-grants-line-until = - { $id }: { $effect } { $what } { $scope }, up to { $risk } risk (granted in { $client } on { $at }, until { $until })
agent-grants-revoke = Revoke one with `/revoke ID`.
agent-tools-none = This session offers no tools.
agent-tools-builtin = **Built-in tools**:
agent-tools-mcp = **MCP tools**:
agent-tools-no-mcp = No MCP server's tools.
