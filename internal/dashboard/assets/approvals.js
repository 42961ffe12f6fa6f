// The approvals page: built by the part of issue 22 that owns it.
"use strict";

moat.view("approvals", {title: "approvals", render(main) { main.append(moat.el("p", {text: "This page is not built yet."})); }});
