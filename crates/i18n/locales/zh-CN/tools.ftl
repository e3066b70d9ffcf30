## Warden（简体中文）：调用要做的事，一行说明（工具调用的标题）。
## 路径、命令、URL 和工具名是参数，从不翻译。

tools-read = 读取 { $path }
tools-read-from = 从第 { $line } 行读取 { $path }
tools-read-lines = 读取 { $path }（第 { $first }-{ $last } 行）
tools-list = 列出 { $path }
tools-search = 搜索 `{ $pattern }`
tools-search-in = 在 { $path } 中搜索 `{ $pattern }`
tools-write = 向 { $path } 写入 { $bytes } 字节
tools-edit = 编辑 { $path }
tools-delete = 删除 { $path }
tools-delete-all = 删除 { $path } 及其中的全部内容
tools-move = 将 { $from } 移动到 { $to }
tools-run = 运行 `{ $command }`
tools-run-in = 在 { $path } 中运行 `{ $command }`
tools-fetch = 获取 { $url }
tools-fetch-method = { $method } { $url }
tools-mcp = 运行 { $server } 的 { $tool }
