// The policy page: the policy in force in each project the agents worked in lately, with
// its source and trust state, and a box that tries a call as `moat check --explain` does
// (issue 22, part POL22). Every text from the server is set as text.
"use strict";

(() => {
  // trust shows a trust state by symbol and word.
  const trustWords = {
    trusted: ["✓", "trusted"],
    changed: ["!", "changed since you trusted it: the version you trusted is in force"],
    untrusted: ["✕", "not trusted: passed over"],
  };
  function trust(state) {
    const [sym, word] = trustWords[state] || ["•", state];
    return moat.el("span", {class: "trust trust-" + state}, moat.el("span", {"aria-hidden": "true", text: sym + " "}), word);
  }

  function entryTitle(e) {
    if (e.scope === "project") return e.project;
    if (e.scope === "user") return "Your policy";
    return "The embedded default";
  }

  // textToggle is a button that shows the text of the policy ref below it.
  function textToggle(ref, label) {
    const pre = moat.el("pre", {class: "policy-text", hidden: true});
    const btn = moat.el("button", {type: "button", "aria-expanded": "false", text: label});
    btn.addEventListener("click", async () => {
      if (!pre.hidden) {
        pre.hidden = true;
        btn.setAttribute("aria-expanded", "false");
        return;
      }
      try {
        const res = await moat.api("GET", "/api/policies/text?path=" + encodeURIComponent(ref));
        pre.textContent = res.text;
      } catch (e) {
        pre.textContent = "Could not read it: " + e.message;
      }
      pre.hidden = false;
      btn.setAttribute("aria-expanded", "true");
    });
    return [btn, pre];
  }

  function renderEntry(e, tryHere) {
    const li = moat.el("li", {class: "policy", "data-policy-source": e.kind || e.scope, "data-scope": e.scope, "data-project": e.project});
    li.append(moat.el("h3", {text: entryTitle(e)}));
    const dl = moat.el("dl", {class: "facts"});
    const fact = (k, ...v) => dl.append(moat.el("dt", {text: k}), moat.el("dd", {}, ...v));
    if (e.missing) {
      fact("file", moat.el("code", {text: e.path}), " does not exist: where no project policy applies, the embedded default does");
    } else {
      if (e.kind) fact("source", e.kind);
      if (e.path) fact("file", moat.el("code", {text: e.path}));
      if (e.name && e.name !== e.path) fact("records name it", moat.el("code", {text: e.name}));
      if (e.trust) fact("trust", trust(e.trust));
      if (!e.error) {
        fact("rules", `${e.rules} of its own, ${e.pack_rules} from packs`);
        fact("packs", (e.packs || []).join(", ") || "none");
        if (e.decides_with && e.decides_with.length) fact("decides with", e.decides_with.join(", "), " (the strictest decision of the layers wins)");
        fact("default", e.default || "");
        fact("fail mode", e.fail || "");
      }
    }
    if (e.last_used) fact("last call", moat.time(e.last_used));
    li.append(dl);
    if (e.error) {
      li.append(moat.el("p", {class: "error", role: "note"}, "This policy does not load: ", moat.el("code", {text: e.error})));
      li.append(moat.el("p", {text: e.kept
        ? "The daemon keeps enforcing the last good policy (" + e.kept + ") until the file is fixed."
        : "Until it is fixed, calls here fail as the fail mode says (closed unless the policy says open: refused)."}));
    }
    if (e.skipped && e.skipped.length) {
      const ul = moat.el("ul", {class: "skipped", "aria-label": "Project policy files passed over"});
      for (const sk of e.skipped) {
        ul.append(moat.el("li", {}, trust(sk.status), " ", moat.el("code", {text: sk.path}),
          moat.el("p", {class: "muted", text: sk.why}), ...textToggle(sk.path, "Show this file")));
      }
      li.append(ul);
    }
    const actions = moat.el("div", {class: "actions"});
    const ref = e.kind === "embedded" ? e.name : e.path;
    const pres = [];
    if (ref && !e.missing) {
      const [btn, pre] = textToggle(ref, "Show the policy");
      actions.append(btn);
      pres.push(pre);
    }
    if (e.scope === "project") {
      actions.append(moat.el("button", {type: "button", text: "Try a call here", onclick: () => tryHere(e.project)}));
    }
    li.append(actions, ...pres);
    return li;
  }

  // tryForm builds the form#try and its result area.
  function tryForm(options, cwd) {
    const agent = moat.el("select", {name: "agent", id: "try-agent"},
      moat.el("option", {value: "", text: "(no agent)"}),
      ...options.agents.map(a => moat.el("option", {value: a, text: a})));
    const tool = moat.el("select", {name: "tool", id: "try-tool"});
    const mcp = moat.el("input", {name: "mcp", id: "try-mcp", placeholder: "mcp:server/tool", autocomplete: "off"});
    const mcpLabel = moat.el("label", {for: "try-mcp", hidden: true}, "MCP tool", mcp);
    const fillTools = () => {
      const keep = tool.value;
      tool.replaceChildren(
        moat.el("optgroup", {label: "Every agent"}, ...options.classes.map(c => moat.el("option", {value: c, text: c}))),
        ...(agent.value && options.tools[agent.value]
          ? [moat.el("optgroup", {label: agent.value + " tools"}, ...options.tools[agent.value].map(n => moat.el("option", {value: n, text: n})))]
          : []),
        moat.el("option", {value: "mcp:", text: "An MCP tool…"}));
      if ([...tool.options].some(o => o.value === keep)) tool.value = keep;
      mcpLabel.hidden = tool.value !== "mcp:";
    };
    agent.addEventListener("change", fillTools);
    tool.addEventListener("change", () => { mcpLabel.hidden = tool.value !== "mcp:"; });
    fillTools();
    const input = moat.el("textarea", {name: "input", id: "try-input", rows: 3, required: true, spellcheck: "false",
      placeholder: "rm -rf ~   ·   ~/.ssh/id_rsa   ·   {\"repo\": \"x\"}"});
    const cwdInput = moat.el("input", {name: "cwd", id: "try-cwd", required: true, value: cwd || "", placeholder: "/absolute/directory", autocomplete: "off"});
    const result = moat.el("div", {id: "try-result", "aria-live": "polite"});
    const form = moat.el("form", {id: "try", class: "try"},
      moat.el("div", {class: "row"},
        moat.el("label", {for: "try-agent"}, "Agent", agent),
        moat.el("label", {for: "try-tool"}, "Tool", tool),
        mcpLabel),
      moat.el("label", {for: "try-input", class: "wide"}, "Command, path, URL or pattern; or the tool's arguments as a JSON object", input),
      moat.el("label", {for: "try-cwd", class: "wide"}, "Working directory of the call", cwdInput),
      moat.el("div", {class: "row"}, moat.el("button", {type: "submit", class: "primary", text: "Decide"}),
        moat.el("span", {class: "muted", text: "Nothing runs, and nothing is recorded, approved or counted."})));
    form.addEventListener("submit", async ev => {
      ev.preventDefault();
      const body = {agent: agent.value, tool: tool.value === "mcp:" ? mcp.value.trim() : tool.value, input: input.value, cwd: cwdInput.value.trim()};
      if (tool.value === "mcp:" && !/^mcp:[^/]+\/.+/.test(body.tool)) {
        result.replaceChildren(moat.errorBox("Name the MCP tool as mcp:SERVER/TOOL."));
        mcp.focus();
        return;
      }
      result.replaceChildren(moat.el("p", {class: "muted", text: "Deciding…"}));
      try {
        result.replaceChildren(...renderResult(await moat.api("POST", "/api/try", body)));
      } catch (e) {
        result.replaceChildren(moat.errorBox(e));
      }
    });
    return {form, result, setCwd(dir) { cwdInput.value = dir; input.focus(); }};
  }

  function renderResult(r) {
    const out = [moat.el("p", {class: "verdict"}, moat.decision(r.decision), " ",
      r.rule ? moat.el("span", {}, "by rule ", moat.el("code", {class: "rule", text: r.rule})) : "",
      moat.el("span", {class: "muted", text: " · " + r.class + " call · policy " + r.policy}))];
    if (r.reason) out.push(moat.el("p", {class: "reason", text: r.reason}));
    if (r.findings && r.findings.length) {
      out.push(moat.el("ul", {class: "findings", "aria-label": "Findings"},
        ...r.findings.map(f => moat.el("li", {}, moat.el("code", {text: f.id}), ` (${f.severity}) `, f.evidence || ""))));
    }
    out.push(moat.el("details", {open: true}, moat.el("summary", {text: "How it was decided"}), moat.el("pre", {class: "trace", text: r.trace})));
    return out;
  }

  moat.view("policy", {
    title: "policy",
    async render(main) {
      main.append(moat.el("h2", {text: "Policies in force"}));
      const [list, options] = await Promise.all([moat.api("GET", "/api/policies"), moat.api("GET", "/api/try/options")]);
      const projects = list.entries.filter(e => e.scope === "project");
      const box = tryForm(options, projects.length ? projects[0].project : "");
      main.append(moat.el("p", {class: "muted", text: projects.length
        ? `The projects your agents worked in since ${moat.time(list.since)}, the most recent first, then your own policy and the embedded default.`
        : "No project has calls recorded in the last 30 days; your own policy and the embedded default follow."}));
      main.append(moat.el("ul", {id: "policies", class: "policies"}, ...list.entries.map(e => renderEntry(e, box.setCwd))));
      main.append(moat.el("h2", {text: "Try a call"}), box.form, box.result);
    },
  });
})();
