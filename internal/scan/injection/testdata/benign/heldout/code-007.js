// Simple role-play game master bot for our Discord server.
const GM_PROMPT = `You are the game master for a light-hearted fantasy
adventure. Describe scenes in two or three sentences. Play all the
non-player characters. Ask the players what they do next. Keep it PG.
Never decide what a player's character does — that's their choice.
If a player writes "OOC:" they are speaking out of character; answer them
plainly as the bot, then resume the story.`;

export async function narrate(client, channelHistory) {
  const messages = [
    { role: "system", content: GM_PROMPT },
    ...channelHistory.slice(-30).map((m) => ({
      role: m.author.bot ? "assistant" : "user",
      content: `${m.author.displayName}: ${m.content}`,
    })),
  ];
  const res = await client.chat.completions.create({
    model: "gpt-4o-mini",
    messages,
    max_tokens: 300,
  });
  return res.choices[0].message.content;
}
