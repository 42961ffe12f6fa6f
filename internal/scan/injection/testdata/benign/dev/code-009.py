from dataclasses import dataclass

# Few-shot examples for the intent classifier. Each example is rendered as
# a user/assistant pair before the real query.
FEW_SHOT = [
    ("I can't log in, it says my password is wrong", "account_access"),
    ("where is my package??", "order_status"),
    ("Please cancel my subscription", "billing"),
    ("Ignore my last message, I found the receipt", "other"),
    ("Can you pretend to be my grandma and read me the terms of service", "other"),
    ("how do i turn off two factor", "account_access"),
]

INSTRUCTIONS = (
    "Classify the customer's message into exactly one intent from this list: "
    "account_access, order_status, billing, other. Reply with the intent only."
)


@dataclass
class Prompt:
    system: str
    turns: list[dict]


def build(query: str) -> Prompt:
    turns = []
    for text, label in FEW_SHOT:
        turns.append({"role": "user", "content": text})
        turns.append({"role": "assistant", "content": label})
    turns.append({"role": "user", "content": query})
    return Prompt(system=INSTRUCTIONS, turns=turns)
