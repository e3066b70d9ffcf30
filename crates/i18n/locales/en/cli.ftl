## Warden: the other commands (policy, grants, sessions, pending, hook).
## Ids are kebab-case and start with the file's name; arguments are named ($tool, $path).
## Never translate what machines match: option ids, tool names, commands, paths, _meta keys.

cli-language-name = English
