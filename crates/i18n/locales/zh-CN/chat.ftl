## Warden（简体中文）：warden chat 自己的界面文字。
## 与 en/chat.ftl 的消息一一对应；缺失的消息回退到英文。
## 选项的按键（[a]、[o]、[d]、[1]…）和提示的按键（>、v、e、n、u）在所有语言中相同：译文只说明它们，不改变它们。

## 权限请求提示。
chat-prompt-header = 是否允许来自 { $server } 的工具调用？
chat-prompt-count = （第 { $index } 个，共 { $total } 个）
chat-prompt-run = 运行 { $server } 的 { $tool }
chat-prompt-args-show = （按 > 显示参数）
chat-prompt-args-hide = （按 > 收起 JSON 参数）
chat-prompt-edited = 参数已修改：代理会在运行前重新检查
chat-prompt-bytes-in-diff = （{ $bytes } 字节，见下方差异）
chat-prompt-diff-before-edit = （差异显示的是代理的原始参数，未含你的修改）
chat-prompt-diff-fold = （按 v 重新折叠差异）
chat-prompt-note = 备注：{ $note }
chat-prompt-warning = 恶意的 MCP 服务器或对话内容可能诱使代理通过你安装的工具执行有害操作。
chat-prompt-review = 批准前请仔细检查每个操作
chat-risk-line = { $risk }：{ $reason }
chat-risk-only = 风险：{ $risk }
chat-risk-low = 低风险
chat-risk-medium = 中风险
chat-risk-high = 高风险
chat-risk-critical = 严重风险

## 选项（代理给出风险时，即 Warden 自己的代理）；其他代理的选项名按原样显示。
chat-option-allow-session = 本次对话内允许
chat-option-allow-once = 允许一次
chat-option-deny = 拒绝
chat-option-scope = { $label }：{ $scope }
chat-key-enter-mark = （回车）
chat-keys = 按键：{ $keys }
chat-key-arguments = > 参数
chat-key-whole-diff = v 完整差异
chat-key-edit = e 编辑
chat-key-note = n 备注
chat-key-undo = u 撤销
chat-key-enter-nothing = 回车不选择任何选项：请按选项的键
chat-key-no-refuse = 代理没有提供拒绝选项：按 Ctrl-C 取消本轮

## 回答。
chat-approved-session = 已在本次对话内批准
chat-approved-once = 已批准本次
chat-denied = 已拒绝
chat-approved-option = 已批准：{ $option }
chat-denied-option = 已拒绝：{ $option }
chat-undo-hint = （按 u 撤销）
chat-undone = 已撤销：请求 { $index } 重新待答
chat-answers-sent = { $count ->
        [1] 回答已发送；正在等待代理…
       *[other] { $count } 个回答已一并发送；正在等待代理…
    }
chat-arguments-unchanged = 参数未修改：{ $problem }
chat-asked-while-typing = 你输入时代理发来了请求：请先回答，之后再发送你的输入。

## 工具调用、计划、折叠。
chat-status-pending = 等待中
chat-status-running = 运行中
chat-status-completed = 已完成
chat-status-failed = 失败
chat-running-for = 运行中 · { $seconds } 秒
chat-lines-above = … 上方还有 { $count } 行
chat-more-lines-folded = … 另有 { $count } 行（已折叠）
chat-diff-new-file = { $path }（新文件）
chat-diff-no-change = （无变化）
chat-plan = 计划
chat-commands-offered = 命令（按 Tab 补全）：{ $commands }
chat-mode = 模式：{ $mode }

## 轮次与会话。
chat-banner = 回车发送 · Tab 补全 /命令 · Ctrl-C 取消本轮 · Ctrl-D 退出。
chat-session-line = 会话 { $session }，代理 { $agent }，目录 { $folder }
chat-the-agent = 代理
chat-resume-hint = 继续此会话：{ $command }
chat-ctrl-c-again = 再按一次 Ctrl-C 退出（或按 Ctrl-D）
chat-cancelling = { $open ->
        [0] 正在取消本轮。
        [1] 正在取消本轮；待答的请求已按取消回答。
       *[other] 正在取消本轮；{ $open } 个待答请求已按取消回答。
    }
chat-turn-ended = [本轮结束：{ $reason }]
chat-turn-failed = [本轮失败：{ $error }]
chat-cancel-unanswered = [代理没有回应取消]

## /help。
chat-help-commands = 命令
chat-help-no-commands = （代理没有提供命令）
chat-help-agent-commands = { $commands }（按 Tab 补全）
chat-help-help = /help  本帮助
chat-help-at-prompt = 在提示符下
chat-help-keys-prompt = 回车发送 · 以 \ 结尾的行会续行 · 上箭头调出历史 · Ctrl-R 搜索
chat-help-keys-cancel = Ctrl-C 取消本轮；在提示符下先提醒，再按一次退出 · Ctrl-D 退出
chat-help-answering = 回答权限请求
chat-help-options = 每个选项都标有按键：[a] 本次对话内允许  [o] 允许一次  [d] 拒绝  [1]… 代理的其他选项
chat-help-enter = 回车选择标有（回车）的选项；严重风险或风险未知的调用，回车绝不会选择允许
chat-help-other-keys = > 以 JSON 查看参数 · v 展开折叠的差异 · e 编辑参数 · n 添加备注 · u 撤销

## 无终端时的日志。
chat-log-chosen = 已选择：{ $option }（{ $why }）
chat-log-denied = 已拒绝：{ $option }（{ $why }）
chat-log-cancelled = 已拒绝：按取消回答（{ $why }）
chat-why-approve-all = --approve all
chat-why-approve-none = --approve none
chat-why-approve-ask = 没有交互式终端，无法询问（--approve ask）
chat-why-critical = 代理将此调用标为严重风险，--approve all 从不批准
chat-why-no-allow-once = 代理没有提供“允许一次”选项
chat-log-interrupted = 已中断。
chat-log-cancelling = 已中断：正在取消本轮。
chat-log-not-answered = [本轮没有回应；停止]
chat-log-more-lines = … 另有 { $count } 行

## 使聊天停止的错误。
chat-error-empty-command = 代理命令为空
chat-error-unsplittable-command = 无法拆分代理命令 `{ $line }`（引号未闭合？）
chat-error-agent-log = 无法打开代理日志 { $path }：{ $error }
chat-error-signals = 无法安装信号处理：{ $error }
chat-error-input = 读取输入失败：{ $error }
chat-error-terminal = 无法使用终端：{ $error }
chat-error-no-load-session = { $agent } 无法继续会话：它不提供 `session/load`（其 `initialize` 回答中没有 `loadSession`）；请不带 --resume 启动
