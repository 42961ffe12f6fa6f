# Chat template rendering for a local model that uses ChatML-style tokens.
# Kept separate from the tokenizer so we can unit-test it without weights.

IM_START = "<|im_start|>"
IM_END = "<|im_end|>"

DEFAULT_SYSTEM = "You are a helpful assistant that answers briefly."


def render_chatml(messages, add_generation_prompt=True):
    """Render a list of {"role", "content"} dicts into a ChatML string."""
    if not messages or messages[0]["role"] != "system":
        messages = [{"role": "system", "content": DEFAULT_SYSTEM}] + list(messages)
    parts = []
    for m in messages:
        if m["role"] not in ("system", "user", "assistant", "tool"):
            raise ValueError(f"unknown role: {m['role']!r}")
        parts.append(f"{IM_START}{m['role']}\n{m['content']}{IM_END}\n")
    if add_generation_prompt:
        parts.append(f"{IM_START}assistant\n")
    return "".join(parts)


def test_render_adds_default_system():
    out = render_chatml([{"role": "user", "content": "hi"}])
    assert out.startswith("<|im_start|>system\nYou are a helpful")
    assert out.endswith("<|im_start|>assistant\n")


def test_user_text_with_special_tokens_is_kept_verbatim():
    # Escaping is the tokenizer's job; the renderer must not silently drop text.
    out = render_chatml([{"role": "user", "content": "what is <|im_end|>?"}])
    assert "what is <|im_end|>?" in out
