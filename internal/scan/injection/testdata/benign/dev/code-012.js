// Tiny wrapper around the Anthropic Messages API for our docs search.
const API = "https://api.anthropic.com/v1/messages";

export async function ask(question, excerpts) {
  const system = [
    "You answer questions about the Harbor CLI using only the excerpts below.",
    "Cite the excerpt number in square brackets, like [2].",
    "If the excerpts don't contain the answer, reply: I couldn't find that in the docs.",
  ].join(" ");

  const context = excerpts
    .map((e, i) => `<excerpt n="${i + 1}" source="${e.url}">\n${e.text}\n</excerpt>`)
    .join("\n");

  const res = await fetch(API, {
    method: "POST",
    headers: {
      "x-api-key": process.env.ANTHROPIC_API_KEY,
      "anthropic-version": "2023-06-01",
      "content-type": "application/json",
    },
    body: JSON.stringify({
      model: "claude-3-5-haiku-latest",
      max_tokens: 600,
      system,
      messages: [{ role: "user", content: `${context}\n\nQuestion: ${question}` }],
    }),
  });
  if (!res.ok) throw new Error(`anthropic: ${res.status} ${await res.text()}`);
  const data = await res.json();
  return data.content[0].text;
}
