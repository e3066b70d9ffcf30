## Warden: warden chat's own interface.
## Ids are kebab-case and start with the file's name; arguments are named ($tool, $path).
## Never translate what machines match: option ids, tool names, commands, paths, _meta keys.

