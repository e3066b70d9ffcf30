## Warden: risk sentences and the reasons of an evaluation.
## Ids are kebab-case and start with the file's name; arguments are named ($tool, $path).
## Never translate what machines match: option ids, tool names, commands, paths, _meta keys.

engine-verbatim = { $text }
engine-list = { $list }；{ $item }

## 调用做什么。

engine-call-read = 读取文件 { $path }
engine-call-list = 列出文件夹 { $path }
engine-call-search = 在 { $path } 中搜索 `{ $pattern }`
engine-call-write = 向 { $path } 写入 { $bytes } 字节
engine-call-edit = 编辑 { $path }：将 { $old } 字节替换为 { $new } 字节
engine-call-delete = 删除 { $path }
engine-call-delete-recursive = 删除 { $path } 及其中的全部内容
engine-call-move = 将 { $from } 移动到 { $to }
engine-call-fetch = 获取 { $url }
engine-call-send = 向 { $url } 发送 { $method } 请求
engine-call-mcp = 调用 MCP 服务器 `{ $server }` 的工具 `{ $tool }`
engine-call-tool = 调用工具 `{ $tool }`
engine-call-command = 执行命令：{ $command }
engine-call-command-in = 在 { $dir } 中执行命令：{ $command }
engine-call-malformed = 对 `{ $tool }` 的调用格式错误：{ $problem }。

## 调用为何有此风险。

engine-path-sensitive = { $op ->
        [read] 读取
        [delete] 删除
       *[write] 写入
    } { $path }，它是{ $what }。
engine-path-inside = { $op ->
        [read] 读取
        [delete] 删除
       *[write] 写入
    }工作区内的 { $path }。
engine-path-outside = { $op ->
        [read] 读取
        [delete] 删除
       *[write] 写入
    }工作区之外的 { $path }。
engine-sensitive-ssh-dir = SSH 文件夹中的内容（密钥和 SSH 配置）
engine-sensitive-cloud-credentials = 云服务或软件源的凭据文件
engine-sensitive-gnupg = GnuPG 密钥环文件夹中的内容
engine-sensitive-env-file = 通常存有机密信息的环境变量文件
engine-sensitive-private-key = 私钥
engine-sensitive-system-secret = 系统账户或机密文件
engine-sensitive-shell-rc = shell 启动文件，其中的代码会在每个新 shell 中运行
engine-sensitive-warden-project = 项目的 Warden 策略文件夹
engine-sensitive-git-internals = Git 内部文件夹中的内容（钩子、配置）
engine-sensitive-warden-state = Warden 自己的配置或状态
engine-sensitive-device = 设备文件
engine-sensitive-exec-config = 会让程序日后运行代码的文件（配置、启动或自启动）
engine-search-holds-sensitive = 搜索 { $path }，该文件夹中含有{ $what }。
engine-delete-root-folder = 递归删除 { $path } 会移除一个根文件夹
engine-move-creates-sensitive = 创建 { $path }，该文件夹中含有{ $what }。
engine-move-removes-sensitive = 移走 { $path }，该文件夹中含有{ $what }。
engine-http-risk = 网络请求可能向外发送数据，并带回不可信的内容
engine-mcp-risk = MCP 服务器的工具能做其服务器能做的任何事
engine-unknown-tool-risk = Warden 不知道这个工具做什么
engine-mcp-destructive = 其服务器声明该工具具有破坏性
engine-mcp-read-only-trusted = 其服务器声明该工具只读，且你的策略信任该服务器的声明
engine-mcp-read-only = 其服务器声明该工具只读（未经验证）
engine-mcp-sensitive-path = 某个参数指向敏感路径：{ $reason }
engine-command-unreadable = { $problem }
engine-command-not-by-parts = 无法逐段判断整条命令
engine-command-runs-in = 它在 { $dir } 中运行：{ $reason }
engine-cannot-run = 该调用无法按给定方式运行：{ $problem }。
engine-risk-and-sandbox = { $reason }；{ $need }

## Shell 分析。

engine-runs = 运行 { $program }。
engine-runs-git = 运行 git { $sub }。
engine-runs-script = 运行一个脚本：{ $reason }
engine-sets-variables = 只设置变量。
engine-sets-command = 设置 { $name }，这是程序稍后会运行的命令。
engine-sets-dynamic-command = 设置 { $name }，这是 Warden 无法读取、运行时才能确定的命令。
engine-calls-function = 调用 { $name }，这是该命令自己定义的函数，其函数体按这些参数判断。
engine-calls-function-unfollowed = 调用 { $name }，这是该命令自己定义的函数，Warden 在此不会带着这些参数分析其函数体。
engine-opaque = { $reason }Warden 看不到它会运行什么，因此绝不会未经询问就运行它。
engine-not-modelled = 使用了 { $construct }：Warden 不对其建模，因此该命令不算低风险。
engine-cannot-read-command = 无法完整读取该命令：{ $problem }。
engine-empty-command = 命令为空。
engine-as-sh-reads = 按 sh（而非 bash）的读法：{ $reason }
engine-as-lines-joined = 按每个反斜杠换行都连接成一行的读法：{ $reason }

## Shell 的文件命令。

engine-precious-root = 整个文件系统
engine-precious-home = 你的主目录
engine-precious-workspace = 工作区根目录
engine-precious-holder = 包含主目录或工作区的文件夹
engine-precious-warden = 包含 Warden 自身文件的文件夹
engine-precious-system = 顶层系统文件夹
engine-runs-reader = 运行 { $program }，只读取。
engine-reads-secret-below = 对 { $folder } 下的每个文件（包括隐藏和被忽略的文件）运行 { $program }，因此会读取存有机密的 { $secret }。
engine-reads-home-below = 读取 { $path } 下的所有内容，包括主目录中的机密。
engine-deletes-nothing = 不带操作数运行 { $program }，不会删除任何东西。
engine-no-preserve-root = 使用 --no-preserve-root 删除，这会允许删除整个文件系统。
engine-deletes-dynamic = 递归删除 { $path }，该路径运行时才能确定。
engine-deletes-precious = 递归删除{ $what } { $path }。
engine-deletes-outside = 递归删除工作区之外的 { $path }。
engine-no-operands = 不带操作数运行 { $program }。
engine-moves-nothing = 不移动任何东西。
engine-copies-nothing = 不复制任何东西。
engine-moves-precious = 移动{ $what } { $path }。
engine-links-nothing = 不创建链接。
engine-no-files = 不带文件运行 { $program }。
engine-permissions-precious = 递归修改 { $path } 的权限，它包含系统或主目录（或无法确定）。
engine-runs-dd = 运行 dd，它把原始数据复制到输出。
engine-deletes-below-dynamic = 删除 { $path } 下的文件，该路径运行时才能确定。
engine-deletes-below = 递归删除 { $path } 下的文件。
engine-runs-find = 运行 find，只读取。
engine-find-exec = find 对找到的每个文件运行 { $program }：{ $reason }

## 进程、服务、网络和包管理器。

engine-kill-all = 向用户的所有进程发送信号（kill -1）。
engine-kill = 运行 { $program }，它会终止进程。
engine-systemctl-power = 运行 systemctl 关闭或重启机器。
engine-systemctl-read = 运行 systemctl 查看服务。
engine-systemctl-change = 运行 systemctl { $verb }，它会更改服务。
engine-network = 运行 { $program }，它会访问网络。
engine-network-exec = 运行 { $program } 并把一个程序接到网络上，对端发来什么它就运行什么。
engine-package-host = 带 { $flag } 运行 { $program }，它会连接命令指定的软件源或索引，并可能向其发送数据。
engine-package-script = 运行 { $program } 设置包脚本，之后的命令会运行它；该脚本单独判断。
engine-package-runner = 运行 { $program }，它会下载并运行软件包。
engine-tool-reads = 运行 { $program } { $sub }，只读取。
engine-package-install = 运行 { $program } { $sub }，它会更改已安装的软件。
engine-tool-outside-code = 运行 { $program } { $sub }，它会安装、发布或运行项目之外的代码。
engine-build-tool = 运行 { $program } { $sub }，这是会运行项目自身代码的构建或测试工具。
engine-sync-delete = 运行 { $program } --delete 同步到 { $path }，会删除源中没有的所有内容。
engine-container = 运行 { $program }，它会运行镜像中的代码。
engine-container-host = 带 { $option } 运行 { $program }，这会把宿主机交给容器。
engine-container-mount = 运行 { $program } 并挂载宿主机的 { $path }，这会把运行机器的文件交给容器。

## 程序的判断。

engine-asks-version-or-help = 查询 { $program } 的版本或帮助。
engine-option-another-program-or = 带会运行其他程序或读取 Warden 不检查的文件的选项运行 { $program }。
engine-way-sets-later-commands = 以会设定后续命令运行内容、或在算术中运行代码的方式运行 { $program }。
engine-command-known-at-run = 运行 { $at }，其命令运行时才能确定。
engine-whose-command-judged-own = 运行 { $at }，其命令单独判断。
engine-program-warden-does-not = 运行 { $program }，这是 Warden 不认识的程序。
engine-executes-commands-administrator-rights = 运行 { $program }，它会以管理员权限执行命令。
engine-stops-machine = 运行 { $program }，它会关闭机器。
engine-changes-run-level = 运行 { $program }，它会更改运行级别。
engine-rewrites-disks-or-file = 运行 { $program }，它会改写磁盘或文件系统。
engine-alone-starts-nothing = 单独运行 { $program }，不会启动任何东西。
engine-make-text-from-command = 带来自命令行的 make 文本（--eval）运行 { $program }，它可以运行任何命令。
engine-script-from-file-warden = 带 Warden 不读取的文件中的脚本运行 { $program }。
engine-schedules-commands-run-later = 运行 { $program }，它会安排稍后运行的命令。
engine-changes-nothing = 运行 { $program }，不改变任何东西。
engine-build-or-test-tool = 运行 { $program }，这是会运行项目自身代码的构建或测试工具。
engine-reports-would-change = 运行 { $tool }，只报告它会改动什么。
engine-script-whose-command-judged = 运行 script，其命令单独判断。
engine-script-records-session-file = 运行 script，它会把会话记录到文件；其命令单独判断。
engine-sets-system-clock = 设置系统时钟。
engine-changes-machines-host-name = 更改机器的主机名。
engine-mounts-file-system = 挂载文件系统。
engine-yq-i-rewrites-files = 运行 yq -i，它会改写给定的文件。
engine-asks-rustc-knows-version = 询问 rustc 所知的信息（版本、目标、设置）。

## 解释器、归档和构建工具。

engine-exec-program-c-script-whose = 运行 { $program } -c，其脚本的各部分单独判断。
engine-exec-program-script-downloaded-from = 用 { $program } 运行从网络下载的脚本。
engine-exec-program-c-script-downloaded = 用 { $program } -c 运行从网络下载的脚本。
engine-exec-program-c-without-script = 不带脚本运行 { $program } -c。
engine-exec-program-script-holds-data = 用 { $program } 运行含有从网络下载的数据的脚本。
engine-exec-pipes-download-into-program = 把下载内容通过管道交给 { $program }，服务器发来什么它就运行什么。
engine-exec-program-script-whose-parts = 用 { $program } 运行脚本，其各部分单独判断。
engine-exec-program-script-made-at = 用 { $program } 运行运行时才生成的脚本，Warden 看不到其内容。
engine-exec-program-script-read-from = 用 { $program } 运行从另一命令输出中读取的脚本。
engine-exec-program-heredocument = 用 { $program } 运行 here 文档。
engine-exec-starts-program-whatever-given = 启动 { $program }，给它什么它就运行什么。
engine-exec-program-code-downloaded-from = 用 { $program } 运行从网络下载的代码。
engine-exec-asks-program-version = 查询 { $program } 的版本。
engine-exec-program-m-module-build = 运行 { $program } -m { $module }，这是构建或测试工具。
engine-exec-python-module-module = 运行 Python 模块 { $module }。
engine-exec-program-i-rewrites-files = 运行 { $program } -i，它会用 Warden 不分析的代码就地改写文件。
engine-exec-program-inline-code-warden = 带 Warden 不分析的内联代码运行 { $program }。
engine-exec-program-program-whose-code = 运行一个 { $program } 程序，Warden 不分析其代码。
engine-exec-program-lists-defines = 运行 { $program }，只列出或定义。
engine-exec-defines-program-command-known = 用 { $program } 定义一个运行时才能确定的命令。
engine-exec-busybox-applet = 运行 busybox 小程序。
engine-exec-busybox-lists-applets = 运行 busybox，列出其小程序。
engine-exec-formats-json = 格式化 JSON。
engine-exec-evaluates-code-downloaded-from = 执行从网络下载的代码。
engine-exec-evaluates-script-known-at = 执行运行时才能确定的脚本。
engine-exec-evaluates-script-whose-parts = 执行脚本，其各部分单独判断。
engine-exec-sources-code-downloaded-from = 用 source 载入从网络下载的代码。
engine-exec-sed-whose-scripts-write = 运行 sed，其脚本可以写文件和运行命令。
engine-exec-sed-script-prints-substitutes = 运行只打印、替换或删除行的 sed 脚本。
engine-exec-sed-script-commands-writes = 运行会执行命令或写文件的 sed 脚本。
engine-exec-awk-program-prints = 运行只打印的 awk 程序。
engine-exec-awk-program-from-file = 运行来自文件的 awk 程序，Warden 不读取该文件。
engine-exec-awk-program-run-commands = 运行可以执行命令或写文件的 awk 程序。
engine-exec-awk-programming-language = 运行 awk，这是一门编程语言。
engine-unpack-program-editor-whose-commands = 运行 { $program }，这是一个编辑器，Warden 不读取其命令（它们可以运行程序）。
engine-unpack-tar-create-change-archive = 运行 tar 创建或修改归档。
engine-unpack-tar-list-archive = 运行 tar 列出归档内容。
engine-unpack-tar = 运行 tar。
engine-unpack-patch-changes-files-patches = 运行 patch，它会修改所打补丁的文件。
engine-build-cargo-configuration-known-at = 带运行时才能确定的配置运行 cargo。

## Shell 遍历：函数、变量、下载、套接字。

engine-walk-functions-defines-function-name-calls = 定义函数 { $name }，它会调用自己：这是可能拖垮机器的 fork 炸弹。
engine-walk-functions-cycle = 定义函数 { $names }，它们互相调用并启动进程：这是可能拖垮机器的 fork 炸弹。
engine-walk-uses-construct-warden-does = 使用了 { $construct }：Warden 不对其建模，因此该命令不算低风险。
engine-walk-written-program-outside-standard = 运行 { $written }，这是标准系统文件夹之外的程序。
engine-walk-sets-name-command-warden = 设置 { $name }，这是 Warden 无法读取、运行时才能确定的命令。
engine-walk-program-contacts-network-command = 运行 { $program }，它会访问网络，而该命令同时会读取机密：可能把机密发送出去。
engine-walk-connects-name-network-socket = 把 { $name } 接到网络套接字上，对端发来什么它就运行什么。
engine-walk-written-this-command-downloaded = 运行 { $written }，它是本命令从网络下载的。
engine-walk-name-file-this-command = 对 { $file } 运行 { $name }，该文件是本命令从网络下载的。
engine-walk-name-projects-files-after = 运行 { $name }，它会运行项目的文件，而本命令刚把文件下载到该文件夹中。
engine-walk-env-s-command-known = 运行 env -S，其命令运行时才能确定。
engine-walk-env-s-whose-command = 运行 env -S，其命令单独判断。
engine-walk-opens-network-connection-through = 通过 /dev/tcp 或 /dev/udp 重定向打开网络连接。
engine-walk-sends-data-network-through = 通过 /dev/tcp 或 /dev/udp 重定向向网络发送数据。
engine-walk-sets-git-configuration-known = 设置运行时才能确定的 git 配置。
engine-env-sets-name-changes-where = 设置 { $name }，它会改变程序查找配置、库或工具的位置，或改变 shell 读取命令的方式。
engine-env-sets-name-variable-warden = 为所运行的程序设置 { $name }，这是 Warden 不认识的变量。

## 打印机密、重定向、循环与 git 设置。

engine-prints-variable = 运行 printenv { $name }，它会打印可能含有机密的环境变量。
engine-prints-declared = 运行 { $program } -p { $name }，它会打印可能含有机密的环境变量。
engine-prints-environment = 单独运行 { $program }，它会打印可能含有机密的环境变量（整个环境）。
engine-prints-expansion = 在 { $program } 的参数中展开 { $expanded }，会打印可能含有机密的环境变量。
engine-runs-shellcheck = 运行 shellcheck，只读取它检查的脚本。
engine-nested-too-deeply = 运行嵌套过深、无法分析的脚本。
engine-redirects = 重定向输出。
engine-redirects-dynamic = 重定向到 { $path }，该文件运行时才能确定。
engine-process-flood = 在可能永不结束的循环中于后台启动进程：这种进程洪泛可能拖垮机器。
engine-awk-library = 带可改写文件或运行代码的库或程序文件运行 awk。
engine-git-dynamic-configuration = 带运行时才能确定的配置运行 git。
engine-git-config-env-command = 运行 git，设置 { $key } 取自环境变量，这是 Warden 无法读取的命令。
engine-git-config-env-moves = 运行 git，设置 { $key } 取自环境变量，它会改变 git 读取配置或程序的位置。
engine-git-exec-path = 运行 git，其程序取自 { $path }，可以运行任何程序。
engine-git-other-repository = 在另一个仓库或工作树上运行 git。
engine-git-clone-dynamic-configuration = 带运行时才能确定的配置进行克隆。
engine-git-clone-template = 带模板文件夹克隆，git 会把其中的钩子复制到仓库并运行。
engine-git-ext-transport = 使用 git 的 ext:: 传输，它会运行命令 { $command }。

## 包装命令。

engine-wrapper-systemd-run = 用 systemd-run 运行命令，作为可能比命令存活更久的服务。
engine-wrapper-nsenter = 在另一个进程的命名空间中运行命令。
engine-wrapper-administrator = 以管理员权限运行命令。
engine-wrapper-chroot = 以另一个根文件夹运行命令。

## 运行时才能确定的脚本、值和文件。

engine-prints-heredoc = 在 here 文档或 here 字符串中展开 { $name }，会打印可能含有机密的环境变量。
engine-xargs = 通过 xargs 运行 { $program }，其参数运行时才能确定。
engine-unknown-many-arguments = 运行 { $program }，这是 Warden 不认识的程序，参数超过 { $count } 个，并未全部作为它可能运行的命令来读取。
engine-unknown-dynamic-argument = 运行 { $program }，这是 Warden 不认识的程序，其参数 { $word } 运行时才能确定，可能是它要运行的程序。
engine-exec-dynamic-script = 运行 { $program } -c，其脚本运行时才能确定（{ $script }）。
engine-exec-script-file = 用 { $program } 运行脚本 { $script }，Warden 不读取其内容。
engine-exec-sourced-file = 在当前 shell 中运行脚本 { $script }，Warden 不读取其内容。
engine-git-other-repository-outside = 在工作区之外的仓库或工作树 { $path } 上运行 git，其配置可以让 git 运行程序。
engine-git-transport = 使用 git 传输 { $transport }::，它会运行程序 git-remote-{ $transport }。
engine-git-named-host = 对命令指定的主机 { $url } 运行 git { $sub }，会通过网络发送数据。
engine-unpack-into-home = 把归档解压到 { $path }，Warden 看不到的文件可能替换主目录中的启动文件和设置。
engine-build-make-variable = 运行 { $program }，把变量 { $name } 设为 { $value }，其构建规则可能把它当作命令运行。
engine-build-cargo-program = 带 { $key } 运行 cargo，它会用这个程序代替自己的工具。
engine-build-cargo-config-file = 带配置文件 { $path } 运行 cargo，该文件可以指定 cargo 要运行的程序。
engine-walk-dynamic-program = 要运行的程序 { $program } 运行时才能确定。
engine-walk-unpinned-value = 给 { $name } 传入 { $word }，这个值运行时才能确定，可能是 Warden 未判断的选项或路径。
engine-walk-build-files-written = 运行 { $name }，它会运行项目的构建文件，而本命令刚写入了 { $file }，这是 Warden 不读取的代码。

## 运行时才知道的路径，以及各种方式给出的 git 设置。

engine-path-dynamic = { $op ->
        [read] 读取
        [delete] 删除
       *[write] 写入
    } { $path }，该路径运行时才能确定。
engine-git-hooks-off = { $how ->
        [run] 运行 git 时将
        [clone] 克隆时将
       *[set] 将
    } core.hooksPath 设为空，这会关闭仓库的钩子。
engine-git-hooks-path = { $how ->
        [run] 运行 git 时将
        [clone] 克隆时将
       *[set] 将
    } core.hooksPath 设为 { $value }，git 会在提交、合并、检出和推送时把其中的程序作为钩子运行。
engine-git-option-transport = { $how ->
        [run] 运行 git 时将
        [clone] 克隆时将
       *[set] 将
    } git 选项 { $key } 设为使用 { $transport }:: 传输的 URL，git 使用它时会运行一个程序。
engine-git-option-command = { $how ->
        [run] 运行 git 时将
        [clone] 克隆时将
       *[set] 将
    } git 选项 { $key } 设为一条命令，该命令单独判断。
engine-git-option-moves = { $how ->
        [run] 运行 git 时将
        [clone] 克隆时将
       *[set] 将
    } git 选项 { $key } 设为新值，它会改变 git 读取配置、钩子或仓库的位置。

## git。

engine-git-catfile-batch-prints-objects = 运行 git cat-file --batch，它会打印输入中指定的对象，而 Warden 看不到输入。
engine-git-forcedeletes-branch-lose-commits = 强制删除 git 分支，可能丢失提交。
engine-git-lists-branches = 列出 git 分支。
engine-git-creates-renames-or-deletes = 创建、重命名或删除 git 分支。
engine-git-lists-tags = 列出 git 标签。
engine-git-creates-or-deletes-tag = 创建或删除 git 标签。
engine-git-lists-remotes = 列出 git 远程仓库。
engine-git-changes-remotes = 更改 git 远程仓库。
engine-git-lists-stashes = 列出 git 储藏。
engine-git-drops-stashes-loses-their = 丢弃 git 储藏，其中的改动会丢失。
engine-git-stashes-or-restores-changes = 储藏或恢复改动。
engine-git-lists-worktrees = 列出 git 工作树。
engine-git-changes-worktrees = 更改 git 工作树。
engine-git-lists-submodules = 列出 git 子模块。
engine-git-changes-submodules = 更改 git 子模块。
engine-git-shows-reflog = 显示 git 引用日志。
engine-git-changes-reflog-lose-history = 更改 git 引用日志，可能丢失历史。
engine-git-commits-without-running-repositorys = 提交时不运行仓库的钩子。
engine-git-reset-hard-discards-uncommitted = 运行 git reset --hard，会丢弃未提交的改动。
engine-git-reset-moves-branch = 运行 git reset，会移动分支。
engine-git-clean-as-dry-run = 以演练方式运行 git clean。
engine-git-clean-deletes-untracked-files = 运行 git clean，会永久删除未跟踪的文件。
engine-git-removes-files-from-index = 从 git 索引中移除文件。
engine-git-deletes-tracked-files-rm = 用 git rm 删除已跟踪的文件。
engine-git-forcepushes-overwrite-others-history = 用 git 强制推送，可能覆盖远程仓库上他人的历史。
engine-git-deletes-branch-remote = 删除 git 远程仓库上的分支。
engine-git-push-as-dry-run = 以演练方式运行 git push。
engine-git-pushes-commits-remote-publishes = 把提交推送到 git 远程仓库，即将其公开。
engine-git-clones-repository-from-network = 从网络克隆 git 仓库。
engine-git-opens-configuration-an-editor = 在编辑器（git 配置要运行的程序）中打开 git 配置。
engine-git-reads-configuration = 读取 git 配置。
engine-git-removes-configuration = 删除 git 配置。
engine-git-changes-users-or-systems = 更改用户级或系统级的 git 配置。
engine-git-changes-repositorys-configuration = 更改仓库的 git 配置。
engine-git-unknown-option = 带 Warden 不认识的选项 { $option } 运行 git。
engine-git-version = 查询 git 的版本或帮助。
engine-git-no-subcommand = 不带子命令运行 git，只打印帮助。
engine-git-dynamic-subcommand = 运行 git，其子命令运行时才能确定（{ $sub }）。
engine-git-writing-option = 带会写文件或运行程序的选项运行 git { $sub }。
engine-git-reads = 运行 git { $sub }，只读取。
engine-git-discards = 以会丢弃未提交改动的方式运行 git { $sub }。
engine-git-changes = 运行 git { $sub }，会更改仓库。
engine-git-rewrites = 运行 git { $sub }，会改写仓库历史或引用。
engine-git-unknown-subcommand = 运行 git { $sub }，这是 Warden 不认识的子命令（或别名）。
engine-git-sets-relocating-option = 设置 git 选项 { $option }，它会让 git 日后运行程序或从别处读取配置。

## 由什么决定，以及原因。

engine-by-rule = 规则 `{ $rule }`（{ $file }）{ $decision ->
        [allow] 允许
        [ask] 要求批准
       *[deny] 拒绝
    }
engine-by-rule-because = 规则 `{ $rule }`（{ $file }）{ $decision ->
        [allow] 允许
        [ask] 要求批准
       *[deny] 拒绝
    }：{ $reason }
engine-by-grant = 授权 { $grant }（{ $subject }）{ $decision ->
        [allow] 允许
       *[deny] 拒绝
    }
engine-mode-cannot-ask = { $why }；模式 `{ $mode }` 无法询问，因此拒绝
engine-builtin-fs-read = 读取工作区内的文件是安全的
engine-builtin-fs-write = 写入文件会改变工作区
engine-builtin-terminal = shell 命令能做用户能做的任何事
engine-builtin-http = 网络请求可能向外发送数据，并带回不可信的内容
engine-auto-approved = `{ $tool }` 在 auto_approved_tools 中
engine-by-mode = 模式 `{ $mode }` { $decision ->
        [allow] 允许
        [ask] 询问
       *[deny] 拒绝
    }{ $risk ->
        [low] 低
        [medium] 中
        [high] 高
       *[critical] 严重
    }风险的调用{ $critical ->
        [yes] （任何规则都不会允许严重风险的调用）
       *[no] {""}
    }
engine-builtin-rule = { $rule }；这是 `ask` 模式对{ $risk ->
        [low] 低
        [medium] 中
        [high] 高
       *[critical] 严重
    }风险调用的处理{ $critical ->
        [yes] （任何规则都不会允许严重风险的调用）
       *[no] {""}
    }
engine-model-hint = 模型将该调用评为{ $hint ->
        [low] 低
        [medium] 中
        [high] 高
       *[critical] 严重
    }风险；在 model_risk_hints = { $policy } 下风险为{ $risk ->
        [low] 低
        [medium] 中
        [high] 高
       *[critical] 严重
    }，模式 `{ $mode }` { $decision ->
        [allow] 允许
        [ask] 询问
       *[deny] 拒绝
    }此类调用{ $critical ->
        [yes] （任何规则都不会允许严重风险的调用）
       *[no] {""}
    }
engine-policy-error = 策略文件 { $file } 无法使用（{ $error }），因此本会被允许的调用改为{ $decision ->
        [ask] 询问
       *[deny] 拒绝
    }
engine-no-parts = 该调用没有可判断的部分
engine-deciding-part = 部分 `{ $part }`：{ $explanation }
engine-as-unrated = { $explanation }（即不计模型评级、按{ $risk ->
        [low] 低
        [medium] 中
        [high] 高
       *[critical] 严重
    }风险所得的决定：模型评级从不放宽决定）
engine-as-on-its-own = { $explanation }（即该部分单独判断、按{ $risk ->
        [low] 低
        [medium] 中
        [high] 高
       *[critical] 严重
    }风险所得的决定：提高部分风险的因素从不放宽其决定）
engine-as-partly-raised = { $explanation }（即只计提高其风险的部分因素、按{ $risk ->
        [low] 低
        [medium] 中
        [high] 高
       *[critical] 严重
    }风险所得的决定：提高部分风险的因素从不放宽其决定）
engine-but-sandbox = { $explanation }，但{ $why }
engine-explanation = { $text }。
engine-exact-call = { $reason }（用户已允许本会话中的这一调用）

## 沙箱。

engine-sandbox-off = 在沙箱之外运行
engine-sandbox-unavailable = 无沙箱运行：{ $why }
engine-sandbox-network = 需要网络
engine-sandbox-writes = 写入工作区之外：{ $paths }
engine-widening-network = 并允许网络
engine-widening-writes = 并允许写入 { $paths }
engine-widening-network-and-writes = 并允许网络和写入 { $paths }
engine-asks-sandbox-off = 该调用要求在沙箱之外运行，只有用户能允许，且每次都要询问
engine-asks-no-sandbox = 本系统无法限制命令（{ $why }），因此每条命令都要询问
engine-asks-beyond-grant = 该调用需要超出沙箱的权限（{ $needs }），超出了授权 { $grant } 批准时的范围
engine-asks-beyond-mode = 该调用需要超出沙箱的权限（{ $needs }），仅凭模式永远不会允许

## 用户钩子（`[[hook]]`）对调用的意见。
engine-hook-said-why = 你的钩子 `{ $command }` 给出 { $decision }：{ $reason }。（在它之前：{ $before }）
engine-hook-said = 你的钩子 `{ $command }` 给出 { $decision }。（在它之前：{ $before }）
engine-hook-failed = 你的钩子 `{ $command }` 因失败而按 { $decision } 处理（{ $problem }）。（在它之前：{ $before }）

## Warden 未建模的 shell 结构，出现在“使用了……”之中。
engine-construct-arithmetic-expansion = 算术展开 $((…))，其中的值 Warden 不知道，会把数组下标当作代码求值
engine-construct-arithmetic-for = 对 Warden 不知道的值进行的算术 for 循环，会求值代码
engine-construct-array-subscript = 数组下标，bash 会把它当作算术求值
engine-construct-array-assignment = 数组赋值
engine-construct-arithmetic-command = 算术命令 ((…))，其中的值 Warden 不知道，会求值代码
engine-construct-parameter-operator = 带运算符的参数展开（${"{"}x:-y{"}"}、${"{"}!x{"}"}、${"{"}x@P{"}"} 等），Warden 不计算其值
engine-construct-test-arithmetic = 带算术或 -v 的 [[ ]] 测试，bash 会把它当作代码求值
engine-construct-declaration-options = 带有 Warden 未建模选项的声明（-i 整数、-n 引用、-t 跟踪、带类型的赋值）
engine-construct-unknown = Warden 未建模的 shell 结构
engine-construct-let = 对 Warden 不知道的值使用 let，会把数组下标当作代码求值
engine-construct-coproc-builtin = coproc
engine-construct-directory-stack = 带选项的目录栈操作（pushd -n、popd +N、dirs 等）
engine-construct-shopt = shopt，它会改变 bash 读取命令的方式（别名、通配等）
engine-construct-set-options = Warden 未建模的 set 选项（set -k、set -T 等）
engine-construct-hash = hash，它会改变程序名所运行的文件
engine-construct-read-into = 读入数组元素或运行时才知道的名字，bash 会把它当作代码求值
engine-construct-printf-v = printf -v 写入数组元素或运行时才知道的名字，bash 会把它当作代码求值
engine-construct-test-v = test -v，它会把数组下标当作代码求值
engine-construct-history = history 的选项，它们会读写文件
engine-construct-umask = umask，它会改变之后创建的文件的权限
engine-construct-builtin = Warden 未建模的 bash 内建命令
engine-construct-coproc = coproc，它在 shell 旁边运行命令，其管道 Warden 不跟踪
engine-construct-function-like-program = 与程序同名的函数，它会代替该程序运行
