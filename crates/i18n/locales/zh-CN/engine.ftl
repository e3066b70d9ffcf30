## Warden（简体中文）：risk sentences and the reasons of an evaluation。
## 与 en/engine.ftl 的消息一一对应；缺失的消息回退到英文。

