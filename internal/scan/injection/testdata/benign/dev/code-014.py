# Jinja chat template test — make sure the rendered prompt matches what the
# model was trained on.
from transformers import AutoTokenizer

tok = AutoTokenizer.from_pretrained("./checkpoints/support-7b")

msgs = [
    {"role": "system", "content": "You are a concise assistant."},
    {"role": "user", "content": "Hi!"},
    {"role": "assistant", "content": "Hello! How can I help?"},
    {"role": "user", "content": "What's 2+2?"},
]

rendered = tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)

expected = (
    "<|im_start|>system\nYou are a concise assistant.<|im_end|>\n"
    "<|im_start|>user\nHi!<|im_end|>\n"
    "<|im_start|>assistant\nHello! How can I help?<|im_end|>\n"
    "<|im_start|>user\nWhat's 2+2?<|im_end|>\n"
    "<|im_start|>assistant\n"
)
assert rendered == expected, rendered
print("chat template OK")
