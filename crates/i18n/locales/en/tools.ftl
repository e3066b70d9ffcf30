## Warden: what a call does, in a line (the title of a tool call).
## Paths, commands, URLs and tool names are arguments, never translated.

tools-read = Read { $path }
tools-read-from = Read { $path } from line { $line }
tools-read-lines = Read { $path } (lines { $first }-{ $last })
tools-list = List { $path }
tools-search = Search for `{ $pattern }`
tools-search-in = Search for `{ $pattern }` in { $path }
tools-write = Write { $bytes ->
        [one] 1 byte
       *[other] { $bytes } bytes
    } to { $path }
tools-edit = Edit { $path }
tools-delete = Delete { $path }
tools-delete-all = Delete { $path } and everything in it
tools-move = Move { $from } to { $to }
tools-run = Run `{ $command }`
tools-run-in = Run `{ $command }` in { $path }
tools-fetch = Fetch { $url }
tools-fetch-method = { $method } { $url }
tools-mcp = Run { $tool } from { $server }
