// The charts page: built by the part of issue 22 that owns it.
"use strict";

moat.view("charts", {title: "charts", render(main) { main.append(moat.el("p", {text: "This page is not built yet."})); }});
