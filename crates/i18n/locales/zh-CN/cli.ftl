## Warden: the other commands (policy, grants, sessions, pending, hook).
## Ids are kebab-case and start with the file's name; arguments are named ($tool, $path).
## Never translate what machines match: option ids, tool names, commands, paths, _meta keys.

cli-language-name = 简体中文

## warden grants

cli-grants-none = 没有已保存的授权（{ $path }）。
cli-grants-damage = { $damage }。在此之前，本会被允许的调用都会改为询问。
cli-grants-column-id = ID
cli-grants-column-effect = 效果
cli-grants-column-scope = 范围
cli-grants-column-created = 创建时间
cli-grants-column-client = 客户端
cli-grants-column-status = 状态
cli-grants-column-what = 内容
cli-grants-status-expired = 已过期
cli-grants-status-expires = 将过期
cli-grants-status-active = 有效
cli-grants-what = { $what }{ $scoped ->
        [yes] （项目 { $project }）
       *[no] {""}
    }{ $expires ->
        [yes] （有效期至 { $until }）
       *[no] {""}
    }
cli-grants-revoked = 已撤销 { $id }。
cli-grants-unknown-id = 没有 ID 为 { $id } 的已保存授权。
cli-grants-expired = 已清除 { $count } 条过期授权。

## warden sessions

cli-sessions-none = 没有已保存的会话（{ $path }）。
cli-sessions-deleted = 已删除会话 { $id }。
cli-sessions-unknown-id = 没有 ID 为 { $id } 的已保存会话。

## warden pending

cli-pending-none = 没有等待批准的工具调用。
cli-pending-label-call = 调用
cli-pending-label-session = 会话
cli-pending-label-tool = 工具
cli-pending-label-title = 标题
cli-pending-label-risk = 风险
cli-pending-label-waiting = 已等待
cli-pending-session-in = { $session }（位于 { $cwd }）
cli-pending-risk = { $risk ->
        [low] 低
        [medium] 中
        [high] 高
       *[critical] 严重
    }：{ $reason }
