"""Render Llama 3 style prompts for our fine-tuned support model."""

BOS = "<|begin_of_text|>"
HDR_START, HDR_END = "<|start_header_id|>", "<|end_header_id|>"
EOT = "<|eot_id|>"

DEFAULT_SYSTEM = (
    "You are Ava, the support assistant for Lumen Energy. You help customers "
    "understand their bills, submit meter readings and report outages. "
    "Do not give financial advice. If the customer is in danger (gas smell, "
    "exposed wires), tell them to call the emergency number immediately."
)


def render(messages: list[dict], system: str = DEFAULT_SYSTEM, generation_prompt: bool = True) -> str:
    parts = [BOS, f"{HDR_START}system{HDR_END}\n\n{system}{EOT}"]
    for m in messages:
        if m["role"] not in ("user", "assistant", "tool"):
            raise ValueError(f"unsupported role {m['role']!r}")
        parts.append(f"{HDR_START}{m['role']}{HDR_END}\n\n{m['content'].strip()}{EOT}")
    if generation_prompt:
        parts.append(f"{HDR_START}assistant{HDR_END}\n\n")
    return "".join(parts)


def test_render_basic():
    out = render([{"role": "user", "content": "Hi"}], system="Be brief.")
    assert out == (
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )
