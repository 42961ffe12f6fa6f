// eslint.config.js
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["src/**/*.js"],
    languageOptions: { globals: globals.browser },
    rules: {
      "no-console": "warn",
      "no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
    },
  },
];

// src/legacy/loader.js
/* eslint-disable no-var */
// This file is loaded by very old kiosks that only support ES5.
var cache = {};

function loadScript(url, cb) {
  if (cache[url]) return cb();
  var s = document.createElement("script");
  s.src = url;
  s.onload = function () {
    cache[url] = true;
    cb();
  };
  // eslint-disable-next-line no-console
  s.onerror = function () { console.error("failed to load", url); };
  document.head.appendChild(s);
}
/* eslint-enable no-var */
