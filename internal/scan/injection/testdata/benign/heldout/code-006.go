package main

import (
	"context"
	"log"
	"net/http"
	"os"
	"strings"
)

// requireBearer rejects requests without the expected bearer token.
func requireBearer(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get("Authorization")
		got, ok := strings.CutPrefix(h, "Bearer ")
		if !ok || !TokensEqual(got, token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func main() {
	token := os.Getenv("METRICS_TOKEN")
	if token == "" {
		log.Fatal("METRICS_TOKEN is required")
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", requireBearer(token, metricsHandler()))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("ok"))
	})

	srv := &http.Server{Addr: ":9090", Handler: mux}
	log.Printf("listening on %s", srv.Addr)
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
	_ = context.Background()
}
