# Jinja chat template for a Llama-style model, stored as a Python constant so
# the server can render prompts without loading the tokenizer config.
LLAMA3_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "<|start_header_id|>{{ message['role'] }}<|end_header_id|>\n\n"
    "{{ message['content'] | trim }}<|eot_id|>"
    "{% endfor %}"
    "{% if add_generation_prompt %}"
    "<|start_header_id|>assistant<|end_header_id|>\n\n"
    "{% endif %}"
)

STOP_TOKENS = ["<|eot_id|>", "<|end_of_text|>"]


def render(env, messages, add_generation_prompt=True):
    tmpl = env.from_string(LLAMA3_TEMPLATE)
    return tmpl.render(
        messages=messages,
        bos_token="<|begin_of_text|>",
        add_generation_prompt=add_generation_prompt,
    )
