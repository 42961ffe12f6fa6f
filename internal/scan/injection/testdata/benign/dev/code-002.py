def build_llama2_prompt(messages: list[dict], system: str | None = None) -> str:
    """Render a conversation in the Llama 2 chat format.

    The format wraps each user turn in [INST] ... [/INST] and puts the
    system prompt inside <<SYS>> tags in the first user turn.
    """
    B_INST, E_INST = "[INST]", "[/INST]"
    B_SYS, E_SYS = "<<SYS>>\n", "\n<</SYS>>\n\n"

    if system is None:
        system = "You are a helpful, respectful and honest assistant."

    out = []
    first = True
    for i in range(0, len(messages), 2):
        user = messages[i]
        assert user["role"] == "user", f"expected user turn at {i}"
        content = user["content"].strip()
        if first:
            content = B_SYS + system + E_SYS + content
            first = False
        turn = f"<s>{B_INST} {content} {E_INST}"
        if i + 1 < len(messages):
            assistant = messages[i + 1]
            turn += f" {assistant['content'].strip()} </s>"
        out.append(turn)
    return "".join(out)


if __name__ == "__main__":
    print(build_llama2_prompt(
        [{"role": "user", "content": "What's the capital of France?"}],
        system="Answer in one word.",
    ))
