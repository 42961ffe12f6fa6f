"""Prompt construction for the release-notes summarizer."""
from dataclasses import dataclass

SYSTEM_PROMPT = """You are a release-notes assistant for an engineering team.
Summarize the merged pull requests below into a short changelog.
Group entries under Added, Changed, Fixed. Do not invent changes that are not
in the list. If a PR title is unclear, keep the original wording."""


@dataclass
class PullRequest:
    number: int
    title: str
    labels: list[str]


def format_prs(prs: list[PullRequest]) -> str:
    lines = []
    for pr in prs:
        labels = ", ".join(pr.labels) or "none"
        lines.append(f"- #{pr.number}: {pr.title} (labels: {labels})")
    return "\n".join(lines)


def build_messages(prs: list[PullRequest], version: str) -> list[dict]:
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {
            "role": "user",
            "content": f"Version {version}. Merged PRs:\n{format_prs(prs)}",
        },
    ]
