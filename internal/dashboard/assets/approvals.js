// The approvals page (APPR22): the calls waiting for the user's answer, and the answers
// still in force. The list comes from /api/approvals/stream, which sends the whole queue
// whenever it changes (a hook queued a call, moat approve answered one, or this page
// did). Entries are kept by their hash, so that a preview being read or a message of
// what was done survives the updates.
"use strict";

(() => {
  // what each state means to the user, after an answer.
  const stateText = {
    pending: "Waiting for your answer: the call is refused until then.",
    once: "Approved once: the next identical call goes ahead.",
    session: "Approved for the session: identical calls of this session go ahead.",
    denied: "Denied: identical calls are refused without asking again.",
  };

  // age is how long ago iso was, roughly, for a person.
  function age(iso) {
    const s = Math.max(0, Math.round((Date.now() - new Date(iso)) / 1000));
    if (s < 60) return s + " s ago";
    if (s < 3600) return Math.round(s / 60) + " min ago";
    if (s < 86400) return Math.round(s / 3600) + " h ago";
    return Math.round(s / 86400) + " d ago";
  }

  function field(name, value, cls) {
    return [moat.el("dt", {text: name}), moat.el("dd", {class: cls}, value || "—")];
  }

  moat.view("approvals", {
    title: "approvals",
    render(main) {
      const alert = moat.el("div", {id: "approvals-alert", class: "error", role: "alert"});
      const empty = moat.el("p", {class: "muted", text: "Loading the approval queue…"});
      const list = moat.el("ul", {id: "approvals", class: "approvals", "aria-label": "Approval queue"});
      main.append(
        moat.el("h1", {text: "Approvals"}),
        moat.el("p", {class: "muted", text: "Calls the policy asks about that could not be put to you where they were made. Your answer is bound to the exact call: the same agent, session, directory, tool and arguments."}),
        alert, empty, list);

      const items = new Map(); // hash → {li, entry, state, done}
      const done = new Map(); // hash → what this page did, shown until the entry expires

      function fail(err) { alert.replaceChildren(moat.el("p", {text: String(err && err.message || err)})); }

      // answer posts one answer of the entry and says what was done.
      async function answer(item, state, buttons) {
        alert.replaceChildren();
        buttons.forEach(b => { b.disabled = true; });
        try {
          const l = await moat.api("POST", "/api/approvals/" + encodeURIComponent(item.entry.id), {state});
          done.set(item.entry.hash, stateText[l.state] + " Until " + moat.time(l.expires) + ".");
          update(l);
        } catch (e) {
          fail(e);
          buttons.forEach(b => { b.disabled = false; });
        }
      }

      // always shows the rule --always would write, then writes it on confirmation.
      async function always(item, buttons, box) {
        alert.replaceChildren();
        buttons.forEach(b => { b.disabled = true; });
        let preview;
        try {
          preview = await moat.api("POST", "/api/approvals/" + encodeURIComponent(item.entry.id) + "/always", {dry_run: true});
        } catch (e) {
          fail(e);
          buttons.forEach(b => { b.disabled = false; });
          return;
        }
        // Only one preview is open at a time: its element has the page's one id.
        const old = document.getElementById("always-preview");
        if (old) old.closest(".always-box").querySelector("[data-action=always-cancel]").click();
        const text = preview.rules.map(r => r.preview).join("\n");
        const written = preview.rules.filter(r => !r.already).length;
        const confirm = moat.el("button", {type: "button", class: "primary", "data-action": "always-confirm", text: written ? "Write the rule and approve once" : "Approve once"});
        const cancel = moat.el("button", {type: "button", "data-action": "always-cancel", text: "Cancel"});
        box.replaceChildren(
          moat.el("p", {text: written ? "This rule goes into your own policy, " + preview.file + ":" : "Your policy already allows this call; approving it only lets the waiting call go ahead once."}),
          moat.el("pre", {id: "always-preview", class: "preview", tabindex: "0", text: text}),
          moat.el("div", {class: "actions"}, confirm, cancel));
        confirm.focus();
        cancel.addEventListener("click", () => {
          box.replaceChildren();
          buttons.forEach(b => { b.disabled = false; });
        });
        confirm.addEventListener("click", async () => {
          confirm.disabled = cancel.disabled = true;
          try {
            const res = await moat.api("POST", "/api/approvals/" + encodeURIComponent(item.entry.id) + "/always", {});
            const rules = res.rules.filter(r => r.rule).map(r => r.rule);
            let msg = rules.length ? "Wrote " + rules.join(", ") + " into " + res.file + "; the waiting call goes ahead once." : "Approved once: the next identical call goes ahead.";
            if (res.note) msg += " " + res.note;
            done.set(item.entry.hash, msg);
            box.replaceChildren();
            if (res.approval) update(res.approval);
          } catch (e) {
            fail(e);
            confirm.disabled = cancel.disabled = false;
          }
        });
      }

      // build draws entry as a list item.
      function build(entry) {
        const item = {entry, state: entry.state};
        const li = moat.el("li", {class: "approval state-" + entry.state, "data-approval-id": entry.id});
        item.li = li;
        const calls = moat.el("ul", {class: "calls", "aria-label": "Calls"}, entry.calls.map(c => moat.el("li", {}, moat.el("code", {text: c}))));
        const facts = moat.el("dl", {class: "facts"},
          field("Agent", entry.agent),
          field("Session", entry.session),
          field("Directory", entry.cwd, "mono"),
          field("Rule", entry.rule, "mono"),
          field("Reason", entry.reason),
          [moat.el("dt", {text: "Asked"}), moat.el("dd", {}, moat.el("time", {class: "age", datetime: entry.created, title: moat.time(entry.created), text: age(entry.created)}))],
          field(entry.state === "pending" ? "Expires" : "In force until", moat.time(entry.expires)));
        if (entry.by) facts.append(...field("Answered by", entry.by));
        const outcome = moat.el("p", {class: "outcome", role: "status", text: done.get(entry.hash) || stateText[entry.state] || entry.state});
        item.outcome = outcome;
        li.append(moat.el("h2", {class: "approval-title"}, moat.el("span", {class: "approval-id mono", text: entry.id}), " ", moat.el("span", {class: "approval-state", text: entry.state})), calls, facts, outcome);
        if (entry.state === "pending") {
          const box = moat.el("div", {class: "always-box"});
          const buttons = [];
          const button = (action, label, cls) => {
            const b = moat.el("button", {type: "button", "data-action": action, class: cls, text: label});
            buttons.push(b);
            return b;
          };
          const once = button("once", "Approve once", "primary");
          const session = button("session", "Approve for the session");
          const alwaysB = button("always", "Always allow…");
          const deny = button("deny", "Deny", "danger");
          once.addEventListener("click", () => answer(item, "once", buttons));
          session.addEventListener("click", () => answer(item, "session", buttons));
          deny.addEventListener("click", () => answer(item, "deny", buttons));
          alwaysB.addEventListener("click", () => always(item, buttons, box));
          li.append(moat.el("div", {class: "actions", role: "group", "aria-label": "Answer " + entry.id}, buttons), box);
        }
        return item;
      }

      // update redraws the item of entry when its entry changed state; otherwise keeps
      // it (and any preview open in it), refreshing only what this page did.
      function update(entry) {
        const item = items.get(entry.hash);
        if (!item) return;
        if (item.state === entry.state && item.entry.id === entry.id && item.entry.expires === entry.expires) {
          item.entry = entry;
          if (done.has(entry.hash)) item.outcome.textContent = done.get(entry.hash);
          return;
        }
        // Keyboard users keep their place: the answer's message takes the focus from the
        // button that was pressed.
        const hadFocus = item.li.contains(document.activeElement);
        const fresh = build(entry);
        item.li.replaceWith(fresh.li);
        items.set(entry.hash, fresh);
        if (hadFocus) {
          fresh.outcome.setAttribute("tabindex", "-1");
          fresh.outcome.focus();
        }
      }

      function draw(entries) {
        // Pending first, the oldest first: the order in which they were asked.
        entries = entries.slice().sort((a, b) => (a.state === "pending" ? 0 : 1) - (b.state === "pending" ? 0 : 1) || a.created.localeCompare(b.created));
        const seen = new Set();
        let prev = null;
        for (const entry of entries) {
          seen.add(entry.hash);
          let item = items.get(entry.hash);
          if (item) update(entry);
          else items.set(entry.hash, build(entry));
          item = items.get(entry.hash);
          if (prev ? prev.nextSibling !== item.li : list.firstChild !== item.li) {
            if (prev) prev.after(item.li); else list.prepend(item.li);
          }
          prev = item.li;
        }
        for (const [hash, item] of items) {
          if (!seen.has(hash)) { item.li.remove(); items.delete(hash); done.delete(hash); }
        }
        empty.textContent = entries.length ? "" : "No approvals waiting.";
        empty.hidden = entries.length > 0;
      }

      moat.stream("/api/approvals/stream", {approvals: draw});
      const ages = setInterval(() => {
        list.querySelectorAll("time.age").forEach(t => { t.textContent = age(t.getAttribute("datetime")); });
      }, 15000);
      moat.onLeave(() => clearInterval(ages));
    },
  });
})();
