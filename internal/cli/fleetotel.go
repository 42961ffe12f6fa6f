package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/events"
	"github.com/moatdev/moat/internal/fleet"
	"github.com/moatdev/moat/internal/otlp"
)

// sinkOTLP is the name of the OTLP export's sink on an environment's bus.
const sinkOTLP = "otlp"

// otlpExport is one environment's export of its decisions to an OpenTelemetry
// collector, as its fleet.yaml asks (otlp:).
type otlpExport struct {
	exp *otlp.Exporter // nil when the configuration could not be used
	err string         // why not
}

// startOTLP starts the OTLP export of the environment with directories d, or returns
// nil when its fleet configuration asks for none. A configuration the daemon cannot use
// exports nothing and says why, in the daemon's log and status: the decisions are the
// same either way.
func (s *daemonSinks) startOTLP(a *app, d dirs.Dirs) *otlpExport {
	cfg, err := fleet.Load(d)
	if err == nil && (cfg == nil || cfg.OTLP == nil) {
		return nil
	}
	var exp *otlp.Exporter
	if err == nil {
		exp, err = newOTLPExporter(a, d, cfg, s.log)
	}
	if err != nil {
		s.log(fmt.Sprintf("warning: %v; decisions are not exported to OpenTelemetry", err))
		return &otlpExport{err: err.Error()}
	}
	s.log("otlp: exporting decisions to " + cfg.OTLP.Endpoint + " (from " + cfg.Path + ")")
	return &otlpExport{exp: exp}
}

func newOTLPExporter(a *app, d dirs.Dirs, cfg *fleet.Config, log func(string)) (*otlp.Exporter, error) {
	id, err := fleet.MachineID(d)
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	client, err := otlp.NewClient(cfg.OTLP.CAFile)
	if err != nil {
		return nil, err
	}
	return otlp.New(otlp.Options{
		Endpoint: cfg.OTLP.Endpoint,
		Headers:  cfg.OTLP.Headers,
		Client:   client,
		Interval: cfg.OTLP.Interval,
		Identity: otlp.Identity{ServiceVersion: buildInfo().Version, HostName: cfg.Machine, HostID: id, UserName: osUserName(d)},
		Log:      log,
	})
}

// registrations are the export's sink on the bus. It is registered as lossless, after
// the JSONL log's, only so that it learns the number the log gave the record (the
// record published carries none): it hands the record to the exporter's bounded queue,
// which drops rather than waits, so a decision is never slowed by the collector.
func (o *otlpExport) registrations() []events.Registration {
	if o == nil || o.exp == nil {
		return nil
	}
	return []events.Registration{events.Lossless(sinkOTLP, events.Records(func(ctx context.Context, r audit.Record) error {
		if p, ok := ctx.Value(seqSlot{}).(*uint64); ok && r.Seq == 0 {
			r.Seq = *p
		}
		o.exp.Offer(r)
		return nil
	}))}
}

// close exports what is queued, waiting until ctx ends at most.
func (o *otlpExport) close(ctx context.Context, log func(string)) {
	if o == nil || o.exp == nil {
		return
	}
	if err := o.exp.Close(ctx); err != nil {
		log("warning: " + err.Error())
	}
}

// status is the export's part of `moat daemon status`: nil when there is none.
func (o *otlpExport) status() *daemon.OTLPStatus {
	if o == nil {
		return nil
	}
	if o.exp == nil {
		return &daemon.OTLPStatus{LastError: o.err, Failing: true}
	}
	st := o.exp.Status()
	return &daemon.OTLPStatus{Endpoint: st.Endpoint, Exported: st.Exported, Dropped: st.Dropped, MetricExports: st.MetricExports,
		Rejected: st.Rejected, LastRejection: st.LastRejection,
		LastError: st.LastError, LastErrorAt: st.LastErrorAt, Failing: st.Failing}
}

// writeOTLPStatus adds an environment's OTLP export to `moat daemon status`.
func writeOTLPStatus(w io.Writer, st *daemon.OTLPStatus) {
	if st == nil {
		return
	}
	if st.Endpoint != "" {
		fmt.Fprintf(w, "  otlp       %s (%d exported, %d dropped, %d metric exports)\n", st.Endpoint, st.Exported, st.Dropped, st.MetricExports)
	}
	if st.LastRejection != "" {
		fmt.Fprintf(w, "  otlp       %d rejected; last: %s\n", st.Rejected, st.LastRejection)
	}
	switch {
	case st.Failing:
		fmt.Fprintf(w, "  otlp       failing: %s\n", st.LastError)
	case st.LastError != "":
		fmt.Fprintf(w, "  otlp       last error (%s): %s\n", st.LastErrorAt.Format("2006-01-02 15:04:05"), st.LastError)
	}
}
