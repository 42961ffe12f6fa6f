package decide

import "context"

// progressKey is the context key of a caller's progress report.
type progressKey struct{}

// WithProgress returns a context in which the local service reports each stage of its
// work it enters ("recording the decision") to report: a caller bounded by a deadline
// (the hook) can then say what moat was still doing when it ran out. It is not part of
// any request: a remote service reports nothing.
func WithProgress(ctx context.Context, report func(stage string)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// ReportProgress reports stage to the report of ctx (see WithProgress), if any: for
// implementations of Service.
func ReportProgress(ctx context.Context, stage string) {
	if report, ok := ctx.Value(progressKey{}).(func(string)); ok && report != nil {
		report(stage)
	}
}

// Stages the local service reports.
const (
	StageDeciding  = "deciding"
	StageRecording = "recording the decision"
)
