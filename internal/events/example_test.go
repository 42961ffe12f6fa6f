package events_test

import (
	"context"
	"fmt"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/events"
	"github.com/moatdev/moat/internal/metrics"
)

// A long-lived process builds one bus with its sinks: the audit, which must lose
// nothing, and the metrics, which may drop events rather than slow a decision. Its
// decision service then records through the bus (decide.Options{Write: bus.Record}).
func Example() {
	var stored []audit.Record
	store := func(_ context.Context, r audit.Record) error {
		stored = append(stored, r)
		return nil
	}
	m := metrics.New(metrics.Options{})
	bus, err := events.New(events.Options{OnDrop: m.Dropped},
		events.Lossless("audit", events.Records(store)),
		events.Lossy("metrics", m, 1024))
	if err != nil {
		panic(err)
	}
	if err := bus.Record(audit.Record{Agent: "claude-code", Class: "shell", Tool: "Bash", Decision: call.Deny, Rule: "no-delete"}); err != nil {
		fmt.Println("not recorded:", err)
	}
	bus.Publish(context.Background(), events.PolicyReload{Policy: "/home/me/.config/moat/moat.yaml"})
	if err := bus.Close(context.Background()); err != nil {
		panic(err)
	}
	fmt.Println(len(stored), "record stored")
	for _, s := range bus.Stats() {
		fmt.Printf("%s: %d delivered, %d dropped\n", s.Name, s.Delivered, s.Dropped)
	}
	// Output:
	// 1 record stored
	// audit: 2 delivered, 0 dropped
	// metrics: 2 delivered, 0 dropped
}
