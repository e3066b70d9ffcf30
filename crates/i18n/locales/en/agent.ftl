## Warden: permission requests, option labels and their _meta.permission texts, notices, denial and timeout messages.
## Ids are kebab-case and start with the file's name; arguments are named ($tool, $path).
## Never translate what machines match: option ids, tool names, commands, paths, _meta keys.

