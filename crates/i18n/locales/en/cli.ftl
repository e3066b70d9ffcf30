## Warden: the other commands (policy, grants, sessions, pending, hook).
## Ids are kebab-case and start with the file's name; arguments are named ($tool, $path).
## Never translate what machines match: option ids, tool names, commands, paths, _meta keys.

cli-language-name = English

## warden grants

cli-grants-none = No stored grants ({ $path }).
cli-grants-damage = { $damage }. Until then, calls that would be allowed ask instead.
cli-grants-column-id = ID
cli-grants-column-effect = EFFECT
cli-grants-column-scope = SCOPE
cli-grants-column-created = CREATED
cli-grants-column-client = CLIENT
cli-grants-column-status = STATUS
cli-grants-column-what = WHAT
cli-grants-status-expired = expired
cli-grants-status-expires = expires
cli-grants-status-active = active
# $scoped and $expires are yes or no; $project and $until are "-" when they are no.
cli-grants-what = { $what }{ $scoped ->
        [yes] {" "}in { $project }
       *[no] {""}
    }{ $expires ->
        [yes] {" "}(until { $until })
       *[no] {""}
    }
cli-grants-revoked = Revoked { $id }.
cli-grants-unknown-id = No stored grant has the id { $id }.
cli-grants-expired = Dropped { $count } expired grant(s).

## warden sessions

cli-sessions-none = No stored sessions ({ $path }).
cli-sessions-deleted = Deleted session { $id }.
cli-sessions-unknown-id = No stored session has the id { $id }.

## warden pending

cli-pending-none = No tool call is waiting for approval.
cli-pending-label-call = Call
cli-pending-label-session = Session
cli-pending-label-tool = Tool
cli-pending-label-title = Title
cli-pending-label-risk = Risk
cli-pending-label-waiting = Waiting
cli-pending-session-in = { $session } in { $cwd }
# $risk is low, medium, high or critical; $reason is the engine's sentence.
cli-pending-risk = { $risk ->
        [low] Low
        [medium] Medium
        [high] High
       *[critical] Critical
    }: { $reason }
