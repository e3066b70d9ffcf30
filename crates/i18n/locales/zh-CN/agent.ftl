## Warden（简体中文）：permission requests, option labels and their _meta.permission texts, notices, denial and timeout messages。
## 与 en/agent.ftl 的消息一一对应；缺失的消息回退到英文。

