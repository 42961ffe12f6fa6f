// The live page: built by the part of issue 22 that owns it.
"use strict";

moat.view("live", {title: "live", render(main) { main.append(moat.el("p", {text: "This page is not built yet."})); }});
