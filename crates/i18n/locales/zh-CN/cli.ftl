## Warden（简体中文）：the other commands (policy, grants, sessions, pending, hook)。
## 与 en/cli.ftl 的消息一一对应；缺失的消息回退到英文。

cli-language-name = 简体中文
