package dashboard

import (
	"embed"
	"html"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed assets
var assetFS embed.FS

// assetHandler serves the embedded assets under /assets/. They hold no data, so they are
// served to anyone on the dashboard's address, the refusal page's styles included.
func assetHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/assets/")
		if name == "" || name == "index.html" || !fs.ValidPath(name) {
			http.NotFound(w, r)
			return
		}
		serveAsset(w, r, name)
	})
}

// serveAsset writes the embedded asset name, with its type.
func serveAsset(w http.ResponseWriter, r *http.Request, name string) {
	data, err := assetFS.ReadFile("assets/" + name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ctype)
	w.Write(data)
}

// refusedPage is the page of a browser that is not logged in, %s the sentence saying why.
const refusedPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>moat dashboard</title>
<link rel="stylesheet" href="/assets/app.css"></head>
<body><main class="refused"><h1>moat dashboard</h1><p role="alert">%s</p></main></body></html>
`

func htmlEscape(s string) string { return html.EscapeString(s) }
