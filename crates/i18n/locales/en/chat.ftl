## Warden: warden chat's own interface.
## Ids are kebab-case and start with the file's name; arguments are named ($tool, $path).
## Never translate what machines match: option ids, tool names, commands, paths, _meta keys.
## The keys of the options ([a], [o], [d], [1]…) and of the prompt (>, v, e, n, u) are the
## same in every language: a translation names them, it never changes them.

## The permission prompt.
chat-prompt-header = Allow tool call from { $server }?
chat-prompt-count = ({ $index } of { $total })
chat-prompt-run = Run { $tool } from { $server }
chat-prompt-args-show = (> shows the arguments)
chat-prompt-args-hide = (> hides the arguments as JSON)
chat-prompt-edited = Arguments edited: the agent checks them again before running
chat-prompt-bytes-in-diff = ({ $bytes } bytes, in the diff below)
chat-prompt-diff-before-edit = (the diff shows the agent's arguments, before your edit)
chat-prompt-diff-fold = (v folds the diff again)
chat-prompt-note = Note: { $note }
chat-prompt-warning = Malicious MCP servers or conversation content could potentially trick the agent into attempting harmful actions through your installed tools.
chat-prompt-review = Review each action carefully before approving
chat-risk-line = { $risk }: { $reason }
chat-risk-only = Risk: { $risk }
chat-risk-low = Low
chat-risk-medium = Medium
chat-risk-high = High
chat-risk-critical = Critical

## The options, for an agent that sends a risk (Warden's); another agent's names are shown as sent.
chat-option-allow-session = Allow for this chat
chat-option-allow-once = Allow once
chat-option-deny = Deny
chat-option-scope = { $label }: { $scope }
chat-key-enter-mark = (Enter)
chat-keys = keys: { $keys }
chat-key-arguments = > arguments
chat-key-whole-diff = v whole diff
chat-key-edit = e edit
chat-key-note = n note
chat-key-undo = u undo
chat-key-enter-nothing = Enter picks nothing: choose an option's key
chat-key-no-refuse = the agent offers no option to refuse: Ctrl-C cancels the turn

## Answers.
chat-approved-session = Approved for session
chat-approved-once = Approved once
chat-denied = Denied
chat-approved-option = Approved: { $option }
chat-denied-option = Denied: { $option }
chat-undo-hint = (u undoes)
chat-undone = Undone: request { $index } is open again
chat-answers-sent = { $count ->
        [one] Answer sent; waiting for the agent…
       *[other] All { $count } answers sent together; waiting for the agent…
    }
chat-arguments-unchanged = Arguments unchanged: { $problem }
chat-asked-while-typing = The agent asked while you typed: answer first; your prompt is sent after.

## Tool calls, plans, folding.
chat-status-pending = pending
chat-status-running = running
chat-status-completed = completed
chat-status-failed = failed
chat-running-for = running · { $seconds }s
chat-lines-above = … { $count } lines above
chat-more-lines-folded = … { $count } more lines (folded)
chat-diff-new-file = { $path } (new file)
chat-diff-no-change = (no change)
chat-plan = Plan
chat-commands-offered = Commands (Tab completes): { $commands }
chat-mode = Mode: { $mode }

## Turns and the session.
chat-banner = Enter sends a prompt · Tab completes /commands · Ctrl-C cancels a turn · Ctrl-D leaves.
chat-session-line = Session { $session } with { $agent } in { $folder }
chat-the-agent = the agent
chat-resume-hint = resume with: { $command }
chat-ctrl-c-again = press Ctrl-C again to quit (or Ctrl-D)
chat-cancelling = { $open ->
        [0] Cancelling the turn.
        [one] Cancelling the turn; the open request is answered cancelled.
       *[other] Cancelling the turn; { $open } open requests are answered cancelled.
    }
chat-turn-ended = [turn ended: { $reason }]
chat-turn-failed = [turn failed: { $error }]
chat-cancel-unanswered = [the agent did not answer the cancel]

## /help.
chat-help-commands = Commands
chat-help-no-commands = (the agent offers none)
chat-help-agent-commands = { $commands }  (Tab completes them)
chat-help-help = /help  this help
chat-help-at-prompt = At the prompt
chat-help-keys-prompt = Enter sends · a line ending in \ goes on · Up recalls · Ctrl-R searches
chat-help-keys-cancel = Ctrl-C cancels a turn; at the prompt it warns, and a second one quits · Ctrl-D quits
chat-help-answering = Answering a permission request
chat-help-options = each option shows its key: [a] Allow for this chat  [o] Allow once  [d] Deny  [1]… the agent's others
chat-help-enter = Enter picks the option marked (Enter), never an allow for a Critical call or an unknown risk
chat-help-other-keys = > the arguments as JSON · v a folded diff whole · e edit the arguments · n a note · u undo

## The log of a chat without a terminal.
chat-log-chosen = Chosen: { $option } ({ $why })
chat-log-denied = Denied: { $option } ({ $why })
chat-log-cancelled = Denied: answered cancelled ({ $why })
chat-why-approve-all = --approve all
chat-why-approve-none = --approve none
chat-why-approve-ask = cannot ask without an interactive terminal (--approve ask)
chat-why-critical = the agent marks this call Critical, which --approve all never approves
chat-why-no-allow-once = the agent offers no allow-once option
chat-log-interrupted = Interrupted.
chat-log-cancelling = Interrupted: cancelling the turn.
chat-log-not-answered = [turn not answered; stopping]
chat-log-more-lines = … { $count } more lines

## Errors that stop the chat.
chat-error-empty-command = the agent command is empty
chat-error-unsplittable-command = cannot split the agent command `{ $line }` (an unclosed quote?)
chat-error-agent-log = cannot open the agent log { $path }: { $error }
chat-error-signals = installing the signal handlers failed: { $error }
chat-error-input = reading prompts failed: { $error }
chat-error-terminal = cannot use the terminal: { $error }
chat-error-no-load-session = { $agent } cannot resume a session: it does not offer `session/load` (no `loadSession` in its `initialize` answer); start without --resume
