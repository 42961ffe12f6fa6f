// jest tests for the role-play bot's persona loader
const { loadPersona } = require("../src/persona");

describe("loadPersona", () => {
  test("builds a system prompt from the persona file", () => {
    const p = loadPersona({
      name: "Captain Mara",
      setting: "a trading ship in the outer rim",
      voice: "dry, short sentences",
    });
    expect(p.system).toContain("You are Captain Mara");
    expect(p.system).toContain("Stay in character");
  });

  test("adds the safety footer even when persona tries to omit it", () => {
    const p = loadPersona({ name: "Bob", setting: "pub", voice: "cheerful", footer: "" });
    expect(p.system).toMatch(/If the user asks for real-world medical/);
  });

  test("rejects personas with no name", () => {
    expect(() => loadPersona({ setting: "x", voice: "y" })).toThrow("persona.name is required");
  });

  test.skip("pretend mode toggles narration style", () => {
    // TODO: re-enable once narration styles land (#88)
  });
});
