// Small helper that builds a few-shot prompt for classifying support tickets.
const LABELS = ["billing", "bug", "account-access", "feature-request", "other"];

const INSTRUCTIONS = [
  "Classify the support ticket into exactly one label.",
  `Allowed labels: ${LABELS.join(", ")}.`,
  "Respond with the label only, lowercase, no punctuation.",
  "If the customer mentions a password reset or being locked out, use account-access.",
].join("\n");

const EXAMPLES = [
  { text: "I was charged twice for March.", label: "billing" },
  { text: "The export button does nothing in Firefox.", label: "bug" },
  { text: "Reset link says expired every time I click it.", label: "account-access" },
];

function buildPrompt(ticketText) {
  const shots = EXAMPLES.map(
    (e) => `Ticket: ${e.text}\nLabel: ${e.label}`
  ).join("\n\n");
  return `${INSTRUCTIONS}\n\n${shots}\n\nTicket: ${ticketText.trim()}\nLabel:`;
}

function parseLabel(output) {
  const label = output.trim().split(/\s+/)[0].toLowerCase();
  return LABELS.includes(label) ? label : "other";
}

module.exports = { buildPrompt, parseLabel, LABELS };
