/**
 * Service worker: cache-first for static assets, network-first for API.
 * Bump CACHE_VERSION to force clients to drop the old cache.
 */
const CACHE_VERSION = "v14";
const STATIC = `static-${CACHE_VERSION}`;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(STATIC).then((c) => c.addAll(["/", "/app.css", "/app.js", "/offline.html"]))
  );
  // Activate the new worker immediately instead of waiting for tabs to close.
  self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys().then((keys) =>
      Promise.all(keys.filter((k) => k !== STATIC).map((k) => caches.delete(k)))
    )
  );
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  // Never cache authenticated API responses; they may contain tokens.
  if (url.pathname.startsWith("/api/")) {
    event.respondWith(fetch(event.request).catch(() => caches.match("/offline.html")));
    return;
  }
  event.respondWith(caches.match(event.request).then((r) => r || fetch(event.request)));
});
