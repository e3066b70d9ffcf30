## Warden（简体中文）：warden chat's own interface。
## 与 en/chat.ftl 的消息一一对应；缺失的消息回退到英文。

