"""Customer support chatbot backed by an OpenAI-compatible API."""
import os

from openai import OpenAI

SYSTEM_PROMPT = """You are a helpful assistant for Northwind Outdoor Gear.
Answer questions about orders, shipping, returns and product care.
If the user asks about something unrelated, politely say you can only help
with Northwind questions. Never make up order numbers or tracking codes.
If you are not sure, offer to connect the user with a human agent."""

client = OpenAI(api_key=os.environ["OPENAI_API_KEY"])


def answer(history: list[dict], user_message: str) -> str:
    messages = [{"role": "system", "content": SYSTEM_PROMPT}]
    messages.extend(history[-10:])  # keep the context small
    messages.append({"role": "user", "content": user_message})
    resp = client.chat.completions.create(
        model=os.environ.get("CHAT_MODEL", "gpt-4o-mini"),
        messages=messages,
        temperature=0.2,
    )
    return resp.choices[0].message.content


if __name__ == "__main__":
    hist: list[dict] = []
    while True:
        try:
            q = input("> ")
        except EOFError:
            break
        a = answer(hist, q)
        hist += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
        print(a)
