// The policy page: built by the part of issue 22 that owns it.
"use strict";

moat.view("policy", {title: "policy", render(main) { main.append(moat.el("p", {text: "This page is not built yet."})); }});
