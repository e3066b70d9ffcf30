## Warden（简体中文）：permission requests, option labels and their _meta.permission texts, notices, denial and timeout messages。
## 与 en/agent.ftl 的消息一一对应；缺失的消息回退到英文。


## 调用的风险等级，显示在理由之前。
agent-risk-low = 低风险
agent-risk-medium = 中风险
agent-risk-high = 高风险
agent-risk-critical = 严重风险
agent-risk-line = { $risk }：{ $reason }
agent-decided-by-part = 由其中的 { $part } 部分决定。

## 询问。
agent-question-mcp = 允许调用来自 { $server } 的工具吗？
agent-question-builtin = { $title }？
agent-mcp-warning = 恶意的 MCP 服务器或对话内容可能诱使 Warden 通过你安装的工具执行有害操作。
agent-mcp-review = 批准前请仔细检查每一项操作
agent-question-description = { $risk }：{ $reason }

## 选项标签及其说明。
agent-option-allow-once = 仅允许这一次
    .description = 现在运行这个调用；下次类似的调用会再次询问。
agent-option-allow-session-mcp = 在本次对话中允许
    .description = 运行这个调用，并且在本次对话的剩余时间内不再询问该工具的调用。
agent-option-allow-session = 在本会话中始终允许 { $grant }
    .description = 运行这个调用，并且在本会话的剩余时间内允许 { $grant }，不再询问。
agent-option-allow-session-exact = 在本会话剩余时间内允许完全相同的调用
    .description = 运行这个调用，并且在本会话中不再询问完全相同的调用。
agent-option-allow-project = 在本项目中始终允许 { $grant }
    .description = 运行这个调用并保存授权：从现在起，本项目中允许 { $grant }。
agent-option-reject-once = 拒绝
    .description = 不运行这个调用；会告知模型，本轮继续进行。
agent-option-reject-once-mcp = 拒绝
    .description = 不运行这个调用；会告知模型，本轮继续进行。
agent-option-reject-and-stop = 拒绝并停止
    .description = 不运行这个调用，并停止本轮：本轮的其余操作都不会运行。
agent-option-reject-project = 在本项目中始终拒绝 { $grant }
    .description = 不运行这个调用并保存授权：从现在起，本项目中拒绝 { $grant }。
agent-option-edit-or-note = 编辑后批准，或附上说明拒绝…
    .description = 打开表单，在批准前修改参数，或告诉模型拒绝的原因。

## 编辑后批准或附说明拒绝的表单。
agent-form-message = { $title }：编辑后批准，或附上说明拒绝
agent-form-decision = 决定
agent-form-string = 修改此值后将以新值运行该调用。
agent-form-json = JSON；修改此值后将以新值运行该调用。
agent-form-note = 说明
agent-form-note-description = 批准时是给模型的指示，拒绝时是拒绝的原因。

## 未运行的调用的结果。
agent-denied-by-user = 你拒绝了这个调用。
agent-denied-by-user-note = 你拒绝了这个调用：{ $note }
agent-denied-by-policy = 策略拒绝：{ $reason }
agent-denied-by-policy-why = 策略拒绝：{ $reason }。{ $why }
agent-denied-too-many = 未经询问即拒绝：本轮的权限请求过多（同时最多等待 { $pending } 个，每轮最多 { $asks } 个）。{ $reason }
agent-timed-out = 已超时：{ $seconds } 秒内无人回答权限请求，因此该调用没有运行。这不是拒绝。
agent-timed-out-forever = 已超时：无人回答权限请求，因此该调用没有运行。这不是拒绝。
agent-answer-failed = 权限请求失败（{ $reason }），按拒绝处理：该调用没有运行。
agent-answer-not-offered = 按拒绝处理：客户端选择了未提供的选项 { $option }。该调用没有运行。
agent-edited-invalid = 编辑后的输入无效（{ $reason }）；该调用没有运行。
agent-invalid-call = 无效的调用：{ $reason }
agent-cancelled = 已取消：该调用完成之前，本轮已被取消。
agent-stopped-call = 未运行：该调用完成之前，你停止了本轮。

## 本轮在回复中说明的内容。
agent-stopped-turn = 你停止了本轮：该调用已被拒绝，本轮的其余操作都没有运行。
agent-reply-incomplete = 模型的回复在完成之前就结束了。
agent-model-failed = 模型出错：{ $error }
agent-request-limit = 停止：本轮已达到 { $limit } 次模型请求的上限。

## 关于已保存授权的通知。
agent-grant-stored-allow-session = 已保存授权：在本会话中允许 { $what }
agent-grant-stored-allow-project = 已保存授权：在本项目中允许 { $what }
agent-grant-stored-deny-session = 已保存授权：在本会话中拒绝 { $what }
agent-grant-stored-deny-project = 已保存授权：在本项目中拒绝 { $what }
agent-grant-stored-detail = `/grants` 列出已保存的授权，`/revoke ID` 可将其删除。
agent-grant-not-stored = 授权未能保存：下次仍会就 { $what } 询问你
agent-this-exact-call = 这个完全相同的调用

## 调用预览中不显示差异时的说明。
agent-preview-write-unread = 将整体写入 { $path }；未读取其当前内容，因此不显示差异。
agent-preview-write-folder = { $path } 是一个文件夹；写入将会失败。
agent-preview-write-hidden = 将整体替换 { $path }，其当前内容未显示（{ $why }）。
agent-preview-delete-folder = 删除文件夹 { $path }，其中有{ $more ->
        [yes] 超过 { $total }
       *[no] { $total }
    } 个条目{ $first }。
agent-preview-delete-missing = { $path } 不存在。
agent-preview-delete-unread = 删除 { $path }；未读取其内容，因此不显示。
agent-preview-delete-hidden = 删除 { $path }，其内容未显示（{ $why }）。

## 会话开始时的通知。
agent-notice-policy-unusable = 有一个策略文件无法使用，因此它本会允许的调用改为询问
agent-notice-policy-unusable-detail = { $file }：{ $error }。请修正它，然后用 `warden policy lint` 检查。
agent-notice-grants-unreadable = 无法读取全部已保存的授权，因此它们本会允许的调用改为询问
agent-notice-journal-damaged = 已保存会话的一部分无法读取
agent-notice-journal-damaged-detail = 其日志中有 { $lines } 行已损坏并被跳过；这些行所记录的调用都不会再次运行。
agent-notice-mcp-tools-missing = MCP 服务器 { $server } 的部分工具未提供
agent-notice-mcp-not-started = MCP 服务器 { $server } 未能启动
agent-notice-mcp-not-started-detail = { $server }：{ $error }。本会话将在没有其工具的情况下运行。
agent-notice-sandbox-off = 命令在沙箱之外运行：隔离已关闭
agent-notice-sandbox-off-detail = 你的策略中设置了 `[sandbox] enabled = false`：引擎允许的命令可以访问你的整个主目录、密钥和网络。删除该设置即可重新隔离命令。
agent-notice-sandbox-missing = 此处的命令无法在沙箱中运行，因此每条命令都会询问
agent-notice-sandbox-missing-detail = 在没有沙箱的情况下运行：{ $why }。`warden doctor` 会说明此系统支持什么。

## Warden 自己的斜杠命令。
agent-why-none = 本会话还没有评估过任何调用。
agent-why-last = **最近的调用**：{ $title }
agent-why-decision = **决定**：{ $decision }，风险 { $risk }：{ $reason }
agent-why-parts = **各部分**：
agent-why-part = - { $part }：{ $decision }，风险 { $risk }：{ $reason }
agent-why-json = 与 `warden policy check` 打印的一致（现在重新评估）：
agent-grants-none = 此处没有适用的授权：调用由策略和会话模式 { $mode } 决定。
agent-grants-heading = **此处适用的授权**（模式 { $mode }）：
agent-grants-allow = 允许
agent-grants-deny = 拒绝
agent-grants-scope-session = 在本会话中
agent-grants-scope-project = 在本项目中
agent-grants-scope-user = 在所有地方
agent-grants-scope-once = 一次
agent-grants-line = - { $id }：{ $scope }{ $effect } { $what }，最高 { $risk } 风险（于 { $at } 在 { $client } 中授予）
agent-grants-line-until = - { $id }：{ $scope }{ $effect } { $what }，最高 { $risk } 风险（于 { $at } 在 { $client } 中授予，有效期至 { $until }）
agent-grants-revoke = 用 `/revoke ID` 撤销其中一项。
agent-tools-none = 本会话不提供任何工具。
agent-tools-builtin = **内置工具**：
agent-tools-mcp = **MCP 工具**：
agent-tools-no-mcp = 没有 MCP 服务器的工具。
